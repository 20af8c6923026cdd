#include "model/report_path.h"

#include <charconv>

namespace cudiag::model {

const Json& fact_at(const Json& report, const std::string& path) {
  static const Json null_json = nullptr;
  const Json* node = &report;
  std::size_t i = 0;
  while (i <= path.size()) {
    auto dot = path.find('.', i);
    auto part = path.substr(i, dot == std::string::npos ? std::string::npos : dot - i);
    // "runtimes[2]" indexes an array.
    auto bracket = part.find('[');
    std::string key = part.substr(0, bracket);
    if (!node->is_object() || !node->contains(key)) return null_json;
    node = &(*node)[key];
    if (bracket != std::string::npos) {
      std::size_t idx = 0;
      const char* first = part.data() + bracket + 1;
      auto [end, ec] = std::from_chars(first, part.data() + part.size(), idx);
      // A malformed index names nothing (a path from a saved report must not throw).
      if (ec != std::errc() || end == first) return null_json;
      if (!node->is_array() || idx >= node->size()) return null_json;
      node = &(*node)[idx];
    }
    if (dot == std::string::npos) break;
    i = dot + 1;
  }
  return *node;
}

}  // namespace cudiag::model
