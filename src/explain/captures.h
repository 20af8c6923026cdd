#pragma once
// What a captured piece of an error message means: each capture kind of
// signatures.h resolved against the knowledge base into named values ({x_name},
// {x_next_cuda} ...), notes for the reader and the API errors it stands for.
// Used by the explain engine (explain.cpp); pure.
#include <string>
#include <vector>

#include "explain/explain.h"
#include "explain/signatures.h"
#include "kb/knowledge_base.h"

namespace cudiag::explain {

struct Resolved {
  std::vector<Value> values;
  std::vector<std::string> notes;
  std::vector<ResolvedError> errors;
};

// Adds {name} = text unless the name has a value already (the first capture wins).
void add_value(Resolved& r, const std::string& name, const std::string& text);
// The value {name} has ("" when none).
std::string value_of(const Resolved& r, const std::string& name);
ResolvedError from_kb(const kb::ErrorCode& e);
// Resolves one capture of kind def.kind: the values it derives, its notes and errors.
void resolve_capture(Resolved& r, const CaptureDef& def, const std::string& text,
                     const std::string& line_lower, const kb::KnowledgeBase& kb);

// The layer an API's errors point at when a code has none of its own.
std::string api_layer(const std::string& api);
// "libcudart.so.11.0" -> "cudart"; "cudart64_110.dll" -> "cudart".
std::string soname_base(const std::string& soname);
std::string ascii_lower(std::string s);

}  // namespace cudiag::explain
