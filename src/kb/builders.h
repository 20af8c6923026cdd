#pragma once
// One builder per table: reads the parsed file into records and checks what a
// schema cannot (duplicate keys, order, consistency inside the table). Checks
// that span tables live in load.cpp.
#include "kb/data.h"
#include "kb/reader.h"

namespace cudiag::kb {

void build_toolkit_drivers(const TableContext& t, KnowledgeBase::Data& d);
void build_minor_version_compat(const TableContext& t, KnowledgeBase::Data& d);
void build_driver_branches(const TableContext& t, KnowledgeBase::Data& d);
void build_architectures(const TableContext& t, KnowledgeBase::Data& d);
void build_ptx_isa(const TableContext& t, KnowledgeBase::Data& d);
void build_host_compilers(const TableContext& t, KnowledgeBase::Data& d);
void build_gpus(const TableContext& t, KnowledgeBase::Data& d);
void build_error_codes(const TableContext& t, KnowledgeBase::Data& d);
void build_forward_compat(const TableContext& t, KnowledgeBase::Data& d);
void build_library_sonames(const TableContext& t, KnowledgeBase::Data& d);
void build_version_encodings(const TableContext& t, KnowledgeBase::Data& d);
// Checks the table only: src/kb/ngc_containers.cpp reads it when asked (it stores no records).
void build_ngc_containers(const TableContext& t, KnowledgeBase::Data& d);

// The readers of a top-level array of the file, named "<key>[i]".
std::vector<EntryReader> table_array(const TableContext& t, std::string_view key);

}  // namespace cudiag::kb
