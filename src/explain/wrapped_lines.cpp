#include "explain/wrapped_lines.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "explain/matcher.h"

namespace cudiag::explain {

namespace {

// How much of each side of a break is looked at: a signature's regex window
// is at most a few hundred bytes around its anchor (matcher.cpp).
constexpr std::size_t kSide = 400;
// The most physical lines one wrapped message is joined from.
constexpr std::size_t kMaxLines = 6;

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view tail_of(std::string_view s) { return s.substr(s.size() > kSide ? s.size() - kSide : 0); }

std::set<const Signature*> signatures_in(std::string_view s, const std::vector<Signature>& sigs, bool ctx,
                                         const AnchorIndex* index) {
  std::set<const Signature*> out;
  for (const auto& m : match_line(s, sigs, ctx, {}, index)) out.insert(m.sig);
  return out;
}

// Cheap test before any regex runs: is there an anchor whose regex window
// (matcher.cpp: 200 bytes before it, 320 after) covers the break? A log line
// without any anchor near its end or the next line's start never joins.
bool anchor_near_break(std::string_view tail, std::string_view next, const std::vector<Signature>& sigs,
                       bool ctx, const AnchorIndex* index) {
  auto head = next.substr(0, std::min(next.size(), kSide));
  // A signature that needs context words (a bare number) counts only where they are.
  auto in_context = [&](const Signature& sig, const std::string& text) {
    return !ctx || sig.context.empty() ||
           std::any_of(sig.context.begin(), sig.context.end(),
                       [&](const std::string& w) { return text.find(w) != std::string::npos; });
  };
  for (const char* sep : {" ", ""}) {
    std::string text = lower(tail) + sep + lower(head);
    std::size_t brk = tail.size();
    if (index && index->size() == sigs.size()) {
      for (const auto& hit : index->find_all(text)) {
        if (hit.begin < brk + 200 && hit.begin + hit.length + 320 > brk &&
            in_context(sigs[hit.signature], text))
          return true;
      }
      continue;
    }
    for (const auto& sig : sigs) {
      if (!in_context(sig, text)) continue;
      for (const auto& anchor : sig.anchors) {
        for (auto pos = text.find(anchor); pos != std::string::npos; pos = text.find(anchor, pos + 1)) {
          if (pos < brk + 200 && pos + anchor.size() + 320 > brk) return true;
        }
      }
    }
  }
  return false;
}

// A signature whose match starts in the first `first_len` bytes of `joined`,
// runs past them, and is none of `alone` (or one whose message continues on
// the next line: Signature::continued).
bool new_match_across(const std::string& joined, std::size_t first_len,
                      const std::set<const Signature*>& alone, const std::vector<Signature>& sigs, bool ctx,
                      const AnchorIndex* index) {
  for (const auto& m : match_line(joined, sigs, ctx, {}, index)) {
    if (m.begin < first_len && m.end > first_len + 1 && (!alone.count(m.sig) || m.sig->continued))
      return true;
  }
  return false;
}

// The separator of a break: a line that ends in a space broke at a space; one
// that does not may be a word cut at the width (a mangled symbol, a path).
const char* guess_separator(std::string_view line) {
  return !line.empty() && (line.back() == ' ' || line.back() == '\t') ? " " : "";
}

}  // namespace

std::vector<LogicalLine> logical_lines(std::string_view text, const std::vector<Signature>& signatures,
                                       bool require_context, const AnchorIndex* index) {
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
  // The signatures each physical line matches alone, computed once: a dense log asks for a line's
  // as the next line of one break and again inside the longer joins that follow.
  std::vector<std::optional<std::set<const Signature*>>> alone_in(physical.size());
  auto alone_in_line = [&](std::size_t j) -> const std::set<const Signature*>& {
    if (!alone_in[j])
      alone_in[j] = signatures_in(trim_left(trim_right(physical[j])), signatures, require_context, index);
    return *alone_in[j];
  };
  std::vector<LogicalLine> out;
  for (std::size_t i = 0; i < physical.size(); ++i) {
    LogicalLine l{std::string(physical[i]), i + 1};
    std::size_t joined_lines = 1;
    while (i + 1 < physical.size() && joined_lines < kMaxLines) {
      auto tail = tail_of(trim_right(l.text));
      auto next = trim_left(trim_right(physical[i + 1]));
      if (tail.empty() || next.empty() || !anchor_near_break(tail, next, signatures, require_context, index))
        break;
      auto alone = signatures_in(tail, signatures, require_context, index);
      // One more line, at a space or at a cut word.
      const char* sep = nullptr;
      auto alone_two = alone;
      for (auto* s : alone_in_line(i + 1)) alone_two.insert(s);
      for (const char* s : {" ", ""}) {
        if (new_match_across(std::string(tail) + s + std::string(next), tail.size(), alone_two, signatures,
                             require_context, index)) {
          sep = s;
          break;
        }
      }
      std::size_t take = sep ? 1 : 0;
      std::string joined;
      if (!sep) {
        // Several more lines (a long message folded three or more times): each
        // break's separator guessed from its line's trailing space.
        joined = std::string(tail);
        auto alone_all = alone;
        std::string_view prev = physical[i];
        for (std::size_t k = 1; i + k < physical.size() && joined_lines + k < kMaxLines; ++k) {
          auto line = trim_left(trim_right(physical[i + k]));
          if (line.empty()) break;
          joined += guess_separator(prev);
          joined += line;
          for (auto* s : alone_in_line(i + k)) alone_all.insert(s);
          prev = physical[i + k];
          if (k >= 2 &&
              new_match_across(joined, tail.size(), alone_all, signatures, require_context, index)) {
            take = k;
            break;
          }
        }
      }
      if (take == 0) break;
      if (sep) {
        l.text = std::string(trim_right(l.text)) + sep + std::string(next);
      } else {
        for (std::size_t k = 1; k <= take; ++k) {
          l.text = std::string(trim_right(l.text)) + guess_separator(physical[i + k - 1]) +
                   std::string(trim_left(trim_right(physical[i + k])));
        }
      }
      i += take;
      joined_lines += take;
    }
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace cudiag::explain
