#pragma once
// Word-wrapping for the fixed-width text outputs (`cudiag kb`, `cudiag explain`),
// and the joining the summaries' lines are built from.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cudiag {

// `text` word-wrapped to `width` columns: the first line continues after
// `first`, the others are indented by `indent`. A word longer than a line (a
// URL, a path) stays whole. Ends with a newline.
std::string word_wrap(std::string_view first, std::string_view text, std::size_t indent,
                      std::size_t width = 80);

// The non-empty parts joined by `sep`: "a · c" from {"a", "", "c"}.
std::string join_nonempty(const std::vector<std::string>& parts, std::string_view sep);

}  // namespace cudiag
