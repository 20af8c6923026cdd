#include "probes/frameworks/framework_files.h"

#include <cctype>

#include "machine/text_util.h"

namespace cudiag::probes {

namespace {

void skip_space(std::string_view s, std::size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
}

// A quoted string starting at s[i] (' or "), or nullopt.
std::optional<std::string> read_string(std::string_view s, std::size_t& i) {
  if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return std::nullopt;
  char q = s[i];
  std::string out;
  for (std::size_t j = i + 1; j < s.size(); ++j) {
    if (s[j] == '\\' && j + 1 < s.size()) {
      out.push_back(s[++j]);
      continue;
    }
    if (s[j] == q) {
      i = j + 1;
      return out;
    }
    if (s[j] == '\n') return std::nullopt;
    out.push_back(s[j]);
  }
  return std::nullopt;
}

// A literal at s[i]: string, None, True, False, a number, or a list/tuple of those.
std::optional<Json> read_literal(std::string_view s, std::size_t& i, int depth = 0) {
  skip_space(s, i);
  if (i >= s.size() || depth > 4) return std::nullopt;
  if (auto str = read_string(s, i)) return Json(*str);
  auto word = [&](std::string_view w) {
    if (s.substr(i, w.size()) != w) return false;
    auto end = i + w.size();
    if (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '_')) return false;
    i = end;
    return true;
  };
  if (word("None")) return Json(nullptr);
  if (word("True")) return Json(true);
  if (word("False")) return Json(false);
  if (s[i] == '[' || s[i] == '(') {
    char close = s[i] == '[' ? ']' : ')';
    ++i;
    Json arr = Json::array();
    while (true) {
      skip_space(s, i);
      if (i < s.size() && s[i] == close) {
        ++i;
        return arr;
      }
      auto v = read_literal(s, i, depth + 1);
      if (!v) return std::nullopt;
      arr.push_back(*v);
      skip_space(s, i);
      if (i < s.size() && s[i] == ',') ++i;
    }
  }
  std::size_t j = i;
  while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.' || s[j] == '-')) ++j;
  if (j > i) {
    auto num = std::string(s.substr(i, j - i));
    i = j;
    try {
      return num.find('.') == std::string::npos ? Json(std::stol(num)) : Json(num);
    } catch (...) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace

std::map<std::string, Json> parse_python_assignments(std::string_view text) {
  std::map<std::string, Json> out;
  for (auto line : machine::split_lines(text)) {
    if (line.empty() || !(std::isalpha(static_cast<unsigned char>(line[0])) || line[0] == '_')) continue;
    std::size_t i = 0;
    while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_')) ++i;
    std::string name(line.substr(0, i));
    skip_space(line, i);
    if (i < line.size() && line[i] == ':') {  // an annotation: cuda: Optional[str] = '12.4'
      auto eq = line.find('=', i);
      if (eq == std::string_view::npos) continue;
      i = eq;
    }
    if (i >= line.size() || line[i] != '=' || (i + 1 < line.size() && line[i + 1] == '=')) continue;
    ++i;
    if (auto v = read_literal(line, i)) out[name] = *v;
  }
  return out;
}

std::map<std::string, Json> parse_python_key_values(std::string_view text) {
  auto out = parse_python_assignments(text);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\'' && text[i] != '"') continue;
    std::size_t j = i;
    auto key = read_string(text, j);
    if (!key) continue;
    std::size_t k = j;
    skip_space(text, k);
    if (k < text.size() && (text[k] == ',' || text[k] == ':')) {
      ++k;
      std::size_t v_at = k;
      if (auto v = read_literal(text, v_at)) {
        if (!key->empty() && key->size() < 64) out.emplace(*key, *v);
        i = v_at - 1;
        continue;
      }
    }
    i = j - 1;
  }
  return out;
}

}  // namespace cudiag::probes
