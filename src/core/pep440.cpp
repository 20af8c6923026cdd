#include "core/pep440.h"

#include <algorithm>
#include <vector>

namespace cudiag {

namespace {

std::string_view trim(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// One version component's number: "0a0" -> 0, "post1" -> 1 is not needed here.
long leading_number(std::string_view s) {
  long v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') break;
    v = v * 10 + (c - '0');
  }
  return v;
}

std::vector<long> numeric_parts(std::string_view v) {
  if (auto plus = v.find('+'); plus != std::string_view::npos) v = v.substr(0, plus);
  std::vector<long> parts;
  while (!v.empty()) {
    auto dot = v.find('.');
    parts.push_back(leading_number(v.substr(0, dot)));
    if (dot == std::string_view::npos) break;
    v.remove_prefix(dot + 1);
  }
  return parts;
}

int compare_parts(const std::vector<long>& a, const std::vector<long>& b) {
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    long x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

bool satisfies_one(const std::vector<long>& have, std::string_view clause) {
  clause = trim(clause);
  std::string_view op;
  for (std::string_view candidate : {"===", "==", "!=", "~=", ">=", "<=", ">", "<"}) {
    if (clause.starts_with(candidate)) {
      op = candidate;
      break;
    }
  }
  if (op.empty()) return true;
  auto text = trim(clause.substr(op.size()));
  bool wildcard = text.ends_with(".*");
  if (wildcard) text.remove_suffix(2);
  auto want = numeric_parts(text);
  if (op == "==" || op == "===" || op == "!=") {
    bool eq;
    if (wildcard) {
      eq = true;
      for (std::size_t i = 0; i < want.size(); ++i) eq = eq && (i < have.size() ? have[i] : 0) == want[i];
    } else {
      eq = compare_parts(have, want) == 0;
    }
    return op == "!=" ? !eq : eq;
  }
  int c = compare_parts(have, want);
  if (op == ">=") return c >= 0;
  if (op == "<=") return c <= 0;
  if (op == ">") return c > 0;
  if (op == "<") return c < 0;
  // ~=X.Y.Z: >= X.Y.Z and == X.Y.*
  if (c < 0) return false;
  for (std::size_t i = 0; i + 1 < want.size(); ++i) {
    if ((i < have.size() ? have[i] : 0) != want[i]) return false;
  }
  return true;
}

}  // namespace

bool version_satisfies(std::string_view version, std::string_view spec) {
  auto have = numeric_parts(version);
  while (!spec.empty()) {
    auto comma = spec.find(',');
    if (!satisfies_one(have, spec.substr(0, comma))) return false;
    if (comma == std::string_view::npos) break;
    spec.remove_prefix(comma + 1);
  }
  return true;
}

}  // namespace cudiag
