#include "machine/text_util.h"

namespace cudiag::machine {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> lines;
  while (!s.empty()) {
    auto nl = s.find('\n');
    lines.push_back(s.substr(0, nl));
    if (nl == std::string_view::npos) break;
    s.remove_prefix(nl + 1);
  }
  return lines;
}

std::map<std::string, std::string> parse_key_values(std::string_view text) {
  std::map<std::string, std::string> out;
  for (auto line : split_lines(text)) {
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    auto eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    auto value = trim(line.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    out[std::string(trim(line.substr(0, eq)))] = sanitize(value);
  }
  return out;
}

std::map<std::string, std::string> parse_colon_fields(std::string_view text) {
  std::map<std::string, std::string> out;
  for (auto line : split_lines(text)) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    out[std::string(trim(line.substr(0, colon)))] = sanitize(trim(line.substr(colon + 1)));
  }
  return out;
}

std::string sanitize(std::string_view s, std::size_t max) {
  std::string out;
  for (char c : s) {
    if (out.size() >= max) break;
    auto u = static_cast<unsigned char>(c);
    out.push_back(u >= 0x20 && u < 0x7f ? c : '?');
  }
  return out;
}

}  // namespace cudiag::machine
