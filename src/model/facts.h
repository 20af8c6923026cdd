#pragma once
// Typed reads of facts: a missing, null or mistyped fact is "unknown"
// (nullopt), never a default and never an exception, so a partial or older
// saved report reads as far as it goes.
#include <optional>
#include <string>

#include "core/json.h"
#include "core/version.h"
#include "model/report_path.h"

namespace cudiag::model {

// The value of the fact at `path` (a {"value": ...} object, or a bare value), or null.
const Json& value_at(const Json& report, const std::string& path);
std::optional<std::string> string_at(const Json& report, const std::string& path);
std::optional<Version> version_at(const Json& report, const std::string& path);
std::optional<bool> bool_at(const Json& report, const std::string& path);
// The numeric result code of an API call fact ({"value": name, "code": N}), or nullopt.
std::optional<long> code_at(const Json& report, const std::string& path);
// Whether the fact at `path` was overlaid by --assume (source "assume:…").
bool is_assumed(const Json& report, const std::string& path);

// A string field of an object that may be a fact ({"value": "…"}) or a bare string; "" otherwise.
std::string str_field(const Json& obj, const char* key);

}  // namespace cudiag::model
