#include "inspect/ptx_text.h"

namespace cudiag::inspect {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0'; }

// Skips whitespace, `//` line comments and `/* */` block comments.
void skip_trivia(std::string_view& s) {
  for (;;) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    if (s.starts_with("//")) {
      auto nl = s.find('\n');
      s = nl == std::string_view::npos ? std::string_view{} : s.substr(nl + 1);
    } else if (s.starts_with("/*")) {
      auto end = s.find("*/", 2);
      s = end == std::string_view::npos ? std::string_view{} : s.substr(end + 2);
    } else {
      return;
    }
  }
}

std::string_view take_line(std::string_view& s) {
  auto nl = s.find('\n');
  std::string_view line = s.substr(0, nl);
  s = nl == std::string_view::npos ? std::string_view{} : s.substr(nl + 1);
  if (auto c = line.find("//"); c != std::string_view::npos) line = line.substr(0, c);
  while (!line.empty() && is_space(line.back())) line.remove_suffix(1);
  while (!line.empty() && is_space(line.front())) line.remove_prefix(1);
  return line;
}

}  // namespace

PtxHead parse_ptx_head(std::string_view text) {
  PtxHead head;
  for (int directives = 0; directives < 4; ++directives) {
    skip_trivia(text);
    std::string_view line = take_line(text);
    if (line.starts_with(".version")) {
      std::string_view v = line.substr(8);
      while (!v.empty() && is_space(v.front())) v.remove_prefix(1);
      head.version = parse_ptx_isa(v);
    } else if (line.starts_with(".target")) {
      std::string_view t = line.substr(7);
      while (!t.empty() && is_space(t.front())) t.remove_prefix(1);
      head.target = std::string(t);
    } else {
      break;
    }
  }
  return head;
}

}  // namespace cudiag::inspect
