#pragma once
// Finds signature matches in one line of text. A signature's regex runs only
// on windows around occurrences of its literal anchors, each window at most a
// few kilobytes, so a megabyte-long log line costs a substring search and the
// regex engine (recursive in libstdc++) never sees long input.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "explain/signatures.h"

namespace cudiag::explain {

class AnchorIndex;

struct RawMatch {
  const Signature* sig = nullptr;
  std::size_t begin = 0;  // byte offsets in the line
  std::size_t end = 0;
  std::vector<std::string> groups;  // one per capture; "" when the group did not take part
  std::vector<bool> matched;
  std::string text;  // the matched text
  // Generic matches this one overlapped and beat, best first: tried when this one names nothing an
  // API defines ("CUDA driver error 804 in call" read as a message loses to its number).
  std::vector<RawMatch> fallbacks;
};

// The matches that count on this line: where matches overlap, the higher
// priority wins; generic signatures count only when no specific one matched.
// `before_lower`: the lower-cased lines before this one (a traceback's frames),
// where a signature's `preceded_by` words must appear; a signature that has
// them never matches without it.
// `index` (optional, built from `signatures`): only the signatures with an anchor on the line are
// tried, the same matches for a fraction of the searches (every signature needs one of its anchors).
std::vector<RawMatch> match_line(std::string_view line, const std::vector<Signature>& signatures,
                                 bool require_context, std::string_view before_lower = {},
                                 const AnchorIndex* index = nullptr);

}  // namespace cudiag::explain
