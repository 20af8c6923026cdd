#pragma once
// The report is a JSON document (see schema/report.schema.json). ordered_json
// keeps keys in insertion order so reports read top to bottom, layer by layer.
#include <nlohmann/json.hpp>
#include <string>

namespace cudiag {
using Json = nlohmann::ordered_json;

// Serialises for output. File names are bytes, not UTF-8: invalid sequences
// become U+FFFD instead of an exception, so a report is always valid JSON.
// indent < 0: one line.
inline std::string json_text(const Json& j, int indent = 2) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}
}  // namespace cudiag
