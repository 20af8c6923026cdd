#include "explain/matcher.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

#include "explain/anchor_index.h"

namespace cudiag::explain {

namespace {

// How far around an anchor a message may extend (a library name before
// "cannot open shared object file", a docker error after its prefix).
constexpr std::size_t kBefore = 200;
constexpr std::size_t kAfter = 320;
// The most text one regex_search sees: bounds the recursion depth of
// libstdc++'s regex executor whatever the line.
constexpr std::size_t kMaxWindow = 2048;

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The windows to search for one signature: around every anchor occurrence,
// merged where they overlap, split where a merged window grows too long.
std::vector<std::pair<std::size_t, std::size_t>> windows_for(const std::string& lower, const Signature& sig) {
  std::vector<std::pair<std::size_t, std::size_t>> raw;
  for (const auto& anchor : sig.anchors) {
    for (auto pos = lower.find(anchor); pos != std::string::npos;
         pos = lower.find(anchor, pos + anchor.size())) {
      std::size_t b = pos > kBefore ? pos - kBefore : 0;
      std::size_t e = std::min(lower.size(), pos + anchor.size() + kAfter);
      raw.emplace_back(b, e);
    }
  }
  std::sort(raw.begin(), raw.end());
  std::vector<std::pair<std::size_t, std::size_t>> merged;
  for (const auto& w : raw) {
    if (!merged.empty() && w.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, w.second);
    } else {
      merged.push_back(w);
    }
  }
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (const auto& [b, e] : merged) {
    // Overlapping chunks so a message straddling a chunk border is still whole in one of them.
    for (std::size_t start = b; start < e;) {
      std::size_t stop = std::min(e, start + kMaxWindow);
      out.emplace_back(start, stop);
      if (stop == e) break;
      start = stop - (kBefore + kAfter);
    }
  }
  return out;
}

// Searches the lowercased line with the lowercased pattern (signatures.h) and reads the match and its
// groups from the line as written: lowercasing ASCII keeps every offset.
void search_window(std::string_view line, std::string_view lower, std::size_t b, std::size_t e,
                   const Signature& sig, std::vector<RawMatch>& out,
                   std::set<std::pair<const Signature*, std::size_t>>& seen) {
  auto first = lower.begin() + static_cast<std::ptrdiff_t>(b);
  auto last = lower.begin() + static_cast<std::ptrdiff_t>(e);
  auto flags = b > 0 ? std::regex_constants::match_prev_avail : std::regex_constants::match_default;
  using It = std::regex_iterator<std::string_view::const_iterator>;
  auto text_of = [&](std::size_t pos, std::size_t len) { return std::string(line.substr(pos, len)); };
  for (It it(first, last, sig.regex.get(), flags), end; it != end; ++it) {
    const auto& m = *it;
    if (m.length(0) == 0) continue;
    std::size_t begin = b + static_cast<std::size_t>(m.position(0));
    if (!seen.insert({&sig, begin}).second) continue;
    RawMatch r;
    r.sig = &sig;
    r.begin = begin;
    r.end = begin + static_cast<std::size_t>(m.length(0));
    r.text = text_of(begin, static_cast<std::size_t>(m.length(0)));
    for (std::size_t g = 1; g < m.size(); ++g) {
      r.matched.push_back(m[g].matched);
      r.groups.push_back(m[g].matched ? text_of(b + static_cast<std::size_t>(m.position(g)),
                                                static_cast<std::size_t>(m.length(g)))
                                      : std::string());
    }
    out.push_back(std::move(r));
  }
}

// An anchored signature's match starts at one of its anchors: one attempt per occurrence instead of
// one per position of a window, for the loose wordings whose anchors are common words.
void search_at_anchors(std::string_view line, std::string_view lower, const Signature& sig,
                       std::vector<RawMatch>& out, std::set<std::pair<const Signature*, std::size_t>>& seen) {
  for (const auto& anchor : sig.anchors) {
    for (auto pos = lower.find(anchor); pos != std::string_view::npos; pos = lower.find(anchor, pos + 1)) {
      auto first = lower.begin() + static_cast<std::ptrdiff_t>(pos);
      auto last = lower.begin() + static_cast<std::ptrdiff_t>(std::min(lower.size(), pos + kAfter));
      auto flags = std::regex_constants::match_continuous;
      if (pos > 0) flags |= std::regex_constants::match_prev_avail;
      std::match_results<std::string_view::const_iterator> m;
      if (!std::regex_search(first, last, m, sig.regex.get(), flags) || m.length(0) == 0) continue;
      if (!seen.insert({&sig, pos}).second) continue;
      RawMatch r;
      r.sig = &sig;
      r.begin = pos;
      r.end = pos + static_cast<std::size_t>(m.length(0));
      r.text = std::string(line.substr(pos, static_cast<std::size_t>(m.length(0))));
      for (std::size_t g = 1; g < m.size(); ++g) {
        r.matched.push_back(m[g].matched);
        r.groups.push_back(m[g].matched
                               ? std::string(line.substr(pos + static_cast<std::size_t>(m.position(g)),
                                                         static_cast<std::size_t>(m.length(g))))
                               : std::string());
      }
      out.push_back(std::move(r));
    }
  }
}

bool overlaps(const RawMatch& a, const RawMatch& b) { return a.begin < b.end && b.begin < a.end; }

// Keeps the best of overlapping matches: priority, then the longer, then the earlier.
std::vector<RawMatch> best_non_overlapping(std::vector<RawMatch> all, bool keep_fallbacks = false) {
  std::sort(all.begin(), all.end(), [](const RawMatch& a, const RawMatch& b) {
    if (a.sig->priority != b.sig->priority) return a.sig->priority > b.sig->priority;
    if (a.end - a.begin != b.end - b.begin) return a.end - a.begin > b.end - b.begin;
    return a.begin < b.begin;
  });
  std::vector<RawMatch> kept;
  for (auto& m : all) {
    auto clash = std::find_if(kept.begin(), kept.end(), [&](const RawMatch& k) { return overlaps(k, m); });
    if (clash == kept.end()) {
      kept.push_back(std::move(m));
    } else if (keep_fallbacks) {
      clash->fallbacks.push_back(std::move(m));
    }
  }
  return kept;
}

}  // namespace

std::vector<RawMatch> match_line(std::string_view line, const std::vector<Signature>& signatures,
                                 bool require_context, std::string_view before_lower,
                                 const AnchorIndex* index) {
  std::string lower = ascii_lower(line);
  std::vector<RawMatch> specific, generic;
  std::set<std::pair<const Signature*, std::size_t>> seen;
  // One pass over the line instead of a search per anchor of every signature.
  std::vector<bool> anchored_here;
  if (index && index->size() == signatures.size()) {
    anchored_here.assign(signatures.size(), false);
    for (const auto& hit : index->find_all(lower)) anchored_here[hit.signature] = true;
  }
  for (std::size_t i = 0; i < signatures.size(); ++i) {
    if (!anchored_here.empty() && !anchored_here[i]) continue;
    const auto& sig = signatures[i];
    if (require_context && !sig.context.empty()) {
      bool any = std::any_of(sig.context.begin(), sig.context.end(),
                             [&](const std::string& w) { return lower.find(w) != std::string::npos; });
      if (!any) continue;
    }
    if (!sig.preceded_by.empty()) {
      bool any = std::any_of(sig.preceded_by.begin(), sig.preceded_by.end(), [&](const std::string& w) {
        return before_lower.find(w) != std::string_view::npos || lower.find(w) != std::string::npos;
      });
      if (!any) continue;
    }
    auto& into = sig.generic ? generic : specific;
    if (sig.anchored) {
      search_at_anchors(line, lower, sig, into, seen);
    } else {
      for (const auto& [b, e] : windows_for(lower, sig)) search_window(line, lower, b, e, sig, into, seen);
    }
  }
  auto kept = best_non_overlapping(std::move(specific));
  if (kept.empty()) kept = best_non_overlapping(std::move(generic), true);
  std::sort(kept.begin(), kept.end(), [](const RawMatch& a, const RawMatch& b) { return a.begin < b.begin; });
  return kept;
}

}  // namespace cudiag::explain
