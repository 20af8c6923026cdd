#pragma once
// A pasted message is often wrapped: a terminal or an issue form breaks a
// RuntimeError at 80 columns, old PyTorch printed "Found no NVIDIA driver on
// your system. Please check that you\nhave an NVIDIA GPU ...". The matcher
// reads one line at a time, so this joins a line with the next when, and only
// when, a signature matches across the break and matches neither line alone
// (a signature whose tail is greedy, which matches on the first line already,
// never joins unrelated lines).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "explain/anchor_index.h"
#include "explain/signatures.h"

namespace cudiag::explain {

struct LogicalLine {
  std::string text;       // the physical lines joined with one space, "\r" and wrap indentation dropped
  std::size_t first = 0;  // 1-based number of its first physical line
};

// `index`, when given, was built from `signatures` (signature_anchor_index): the anchors near each
// line break are then found in one pass.
std::vector<LogicalLine> logical_lines(std::string_view text, const std::vector<Signature>& signatures,
                                       bool require_context, const AnchorIndex* index = nullptr);

}  // namespace cudiag::explain
