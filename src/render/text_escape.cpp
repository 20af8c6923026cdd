#include "render/text_escape.h"

namespace cudiag::render {

namespace {
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

std::size_t utf8_length(std::string_view s, std::size_t at) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[at + k]); };
  auto cont = [&](std::size_t k) { return at + k < s.size() && (b(k) & 0xC0) == 0x80; };
  unsigned char c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(1) >= 0xA0) return 0;  // surrogates
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;   // overlong
    if (c == 0xF4 && b(1) >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    auto n = utf8_length(s, i);
    if (n == 0) {
      out.append(kReplacement);
      ++i;
      continue;
    }
    auto c = static_cast<unsigned char>(s[i]);
    if (n == 1 && (c < 0x20 || c == 0x7F) && c != '\t' && c != '\n') {
      out.append(c == '\r' ? std::string_view(" ") : kReplacement);
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::string markup_escape(std::string_view s) {
  std::string out;
  for (char c : valid_utf8(s)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string markdown_escape(std::string_view s) {
  std::string out;
  for (char c : valid_utf8(s)) {
    if (c == '\n' || c == '\t') {
      out.push_back(' ');
    } else if (std::string_view("\\`*_[]<>|~").find(c) != std::string_view::npos) {
      out.push_back('\\');
      out.push_back(c);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string markdown_code(std::string_view s) {
  std::string out = valid_utf8(s);
  for (std::size_t at = out.find("```"); at != std::string::npos; at = out.find("```", at))
    out.replace(at, 3, "'''");
  return out;
}

}  // namespace cudiag::render
