#include "core/text_wrap.h"

#include <sstream>

namespace cudiag {

std::string word_wrap(std::string_view first, std::string_view text, std::size_t indent, std::size_t width) {
  std::string out(first);
  std::size_t col = out.size();
  std::istringstream in{std::string(text)};
  std::string word;
  bool line_start = true;
  while (in >> word) {
    if (!line_start && col + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
      line_start = true;
    }
    if (!line_start) {
      out += ' ';
      ++col;
    }
    out += word;
    col += word.size();
    line_start = false;
  }
  return out + "\n";
}

std::string join_nonempty(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) {
    if (p.empty()) continue;
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

}  // namespace cudiag
