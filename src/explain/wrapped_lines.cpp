#include "explain/wrapped_lines.h"

#include <algorithm>
#include <set>

#include "explain/matcher.h"

namespace cudiag::explain {

namespace {

// How much of each side of a break is looked at: a signature's regex window
// is at most a few hundred bytes around its anchor (matcher.cpp).
constexpr std::size_t kSide = 400;

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

std::set<const Signature*> signatures_in(std::string_view s, const std::vector<Signature>& sigs, bool ctx) {
  std::set<const Signature*> out;
  for (const auto& m : match_line(s, sigs, ctx)) out.insert(m.sig);
  return out;
}

// True when a signature matches across the break between `a` and `b` that
// matches neither side alone.
bool wrapped(std::string_view a, std::string_view b, const std::vector<Signature>& sigs, bool ctx) {
  a = trim_right(a);
  b = trim_left(trim_right(b));
  if (a.empty() || b.empty()) return false;
  auto tail = a.substr(a.size() > kSide ? a.size() - kSide : 0);
  auto head = b.substr(0, std::min(b.size(), kSide));
  std::string joined = std::string(tail) + " " + std::string(head);
  auto across = match_line(joined, sigs, ctx);
  bool spans = std::any_of(across.begin(), across.end(), [&](const RawMatch& m) {
    return m.begin < tail.size() && m.end > tail.size() + 1;
  });
  if (!spans) return false;
  auto alone = signatures_in(tail, sigs, ctx);
  for (auto* s : signatures_in(head, sigs, ctx)) alone.insert(s);
  return std::any_of(across.begin(), across.end(), [&](const RawMatch& m) {
    return m.begin < tail.size() && m.end > tail.size() + 1 && !alone.count(m.sig);
  });
}

}  // namespace

std::vector<LogicalLine> logical_lines(std::string_view text, const std::vector<Signature>& signatures,
                                       bool require_context) {
  std::vector<std::string_view> physical;
  for (std::size_t start = 0; start <= text.size();) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    auto line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    physical.push_back(line);
    if (end == text.size()) break;
    start = end + 1;
  }
  std::vector<LogicalLine> out;
  for (std::size_t i = 0; i < physical.size(); ++i) {
    LogicalLine l{std::string(physical[i]), i + 1};
    // A message wrapped over several lines joins one break at a time; the last
    // physical line decides the next break (a long message is never re-matched whole).
    while (i + 1 < physical.size() && wrapped(physical[i], physical[i + 1], signatures, require_context)) {
      l.text = std::string(trim_right(l.text)) + " " + std::string(trim_left(trim_right(physical[i + 1])));
      ++i;
    }
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace cudiag::explain
