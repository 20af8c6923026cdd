#include "rules/require_expression.h"

#include <algorithm>
#include <cctype>

#include "core/version.h"

namespace cudiag::rules {

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

struct Expr {
  std::string name, op, value;
};

std::optional<Expr> parse_expr(const std::string& text) {
  static const char* ops[] = {"!=", "<=", ">=", "=", "<", ">"};
  std::size_t pos = text.find_first_of("!=<>");
  if (pos == std::string::npos || pos == 0) return std::nullopt;
  for (const char* op : ops) {
    if (text.compare(pos, std::char_traits<char>::length(op), op) == 0) {
      Expr e{lower(text.substr(0, pos)), op, text.substr(pos + std::char_traits<char>::length(op))};
      if (e.value.empty()) return std::nullopt;
      return e;
    }
  }
  return std::nullopt;
}

bool compare(int cmp, const std::string& op) {
  if (op == "=") return cmp == 0;
  if (op == "!=") return cmp != 0;
  if (op == "<") return cmp < 0;
  if (op == "<=") return cmp <= 0;
  if (op == ">") return cmp > 0;
  return cmp >= 0;
}

// nullopt: the expression is malformed.
std::optional<bool> evaluate(const Expr& e, const RequireContext& ctx) {
  if (e.name == "brand") {
    if (e.op != "=" && e.op != "!=") return std::nullopt;
    if (!ctx.brand) return true;
    return compare(lower(*ctx.brand) == lower(e.value) ? 0 : 1, e.op);
  }
  const std::optional<std::string>* have = e.name == "cuda"     ? &ctx.cuda
                                           : e.name == "driver" ? &ctx.driver
                                           : e.name == "arch"   ? &ctx.arch
                                                                : nullptr;
  if (have == nullptr) return std::nullopt;
  auto want = Version::parse(e.value);
  if (!want) return std::nullopt;
  if (!*have) return true;
  auto v = Version::parse(**have);
  if (!v) return true;
  auto order = *v <=> *want;
  return compare(order < 0 ? -1 : order > 0 ? 1 : 0, e.op);
}

}  // namespace

RequireResult evaluate_requirement(const std::string& requirement, const RequireContext& ctx) {
  RequireResult r;
  std::string text = requirement;
  std::replace(text.begin(), text.end(), '\t', ' ');
  auto alternatives = split(text, ' ');
  if (alternatives.empty()) return r;  // an empty requirement asks for nothing
  r.first_term = alternatives.front();
  r.satisfied = false;
  for (const auto& alt : alternatives) {
    bool all = true;
    for (const auto& term : split(alt, ',')) {
      auto e = parse_expr(term);
      auto ok = e ? evaluate(*e, ctx) : std::nullopt;
      if (!ok) {
        r.valid = false;
        r.error = "invalid expression '" + term + "'";
        r.satisfied = false;
        return r;
      }
      all = all && *ok;
    }
    if (all) r.satisfied = true;
  }
  return r;
}

}  // namespace cudiag::rules
