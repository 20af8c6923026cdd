#pragma once
// A fact is one collected value with where it came from. In the report it is
//   {"value": V, "source": "file:/proc/driver/nvidia/version"}
// or, when collection failed,
//   {"value": null, "source": "...", "error": "why it is unknown"}.
// "Unknown" is a fact too: rules treat a null value as "cannot say".
#include <string>
#include <string_view>

#include "core/json.h"

namespace cudiag {

Json fact(Json value, std::string_view source);
Json unknown_fact(std::string_view source, std::string_view why);

// Source strings, so every probe spells them the same way.
std::string file_source(std::string_view path);                      // "file:/proc/..."
std::string env_source(std::string_view name);                       // "env:CUDA_HOME"
std::string call_source(std::string_view lib, std::string_view fn);  // "call:/usr/lib/libcuda.so.1!cuInit"

// The value of a fact, or null when the fact is missing or unknown.
const Json& fact_value(const Json& maybe_fact);

}  // namespace cudiag
