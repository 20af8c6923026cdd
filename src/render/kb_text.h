#pragma once
// The text answers of `cudiag kb` (src/cli/cmd_kb.cpp asks the knowledge base;
// this formats what it answered), readable at 80 columns. Each function returns
// the whole answer; --format json is kb/json_out.h's.
#include <string>
#include <utility>
#include <vector>

#include "core/version.h"
#include "kb/records.h"

namespace cudiag::render {

// `kb driver-for VERSION`: the minimum drivers of a known release, on `os` ("linux" or "windows").
std::string kb_driver_for_text(const std::string& version, const std::string& os,
                               const kb::DriverRequirement& req);
// `kb driver-for VERSION` of a release the knowledge base lacks: the nearest known ones, as what they are.
std::string kb_driver_for_unknown_text(const std::string& version, const std::string& os,
                                       const std::vector<const kb::ToolkitRelease*>& nearest);
std::string kb_cuda_for_driver_text(const Version& driver, const kb::BranchMatch& m);
std::string kb_arch_text(const kb::ArchMatch& m);
std::string kb_errors_text(const std::vector<const kb::ErrorCode*>& found);
// Each GPU with its architecture (nullptr when the knowledge base has none for its compute capability).
std::string kb_gpus_text(const std::vector<std::pair<const kb::Gpu*, const kb::Arch*>>& found);
// `kb ptx --cuda X.Y`: the PTX ISA the release generates.
std::string kb_ptx_of_cuda_text(const kb::PtxIsa& row, const Version& isa);
// `kb ptx ISA`: the first CUDA that knows it.
std::string kb_cuda_of_ptx_text(const kb::PtxIsa& row, const Version& isa, const Version& cuda);
std::string kb_tables_text(const std::string& origin, const std::vector<kb::TableInfo>& tables);

}  // namespace cudiag::render
