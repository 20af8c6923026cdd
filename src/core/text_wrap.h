#pragma once
// Word-wrapping for the fixed-width text outputs (`cudiag kb`, `cudiag explain`).
#include <cstddef>
#include <string>
#include <string_view>

namespace cudiag {

// `text` word-wrapped to `width` columns: the first line continues after
// `first`, the others are indented by `indent`. A word longer than a line (a
// URL, a path) stays whole. Ends with a newline.
std::string word_wrap(std::string_view first, std::string_view text, std::size_t indent,
                      std::size_t width = 80);

}  // namespace cudiag
