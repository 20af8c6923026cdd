#pragma once
// The report is a JSON document (see schema/report.schema.json). ordered_json
// keeps keys in insertion order so reports read top to bottom, layer by layer.
#include <nlohmann/json.hpp>

namespace cudiag {
using Json = nlohmann::ordered_json;
}  // namespace cudiag
