#pragma once
// Escaping for the markup formats. Report strings are bytes (file names need
// not be UTF-8) and may hold anything, so every markup renderer passes them
// through these before they reach a document.
#include <string>
#include <string_view>

namespace cudiag::render {

// Length of the valid UTF-8 sequence at `at` (< s.size()), or 0: overlongs,
// surrogates and code points above U+10FFFF are invalid.
std::size_t utf8_length(std::string_view s, std::size_t at);

// Invalid UTF-8 sequences become U+FFFD; control characters other than tab
// and newline become U+FFFD too (XML 1.0 forbids them, terminals misread them).
std::string valid_utf8(std::string_view s);
// &, <, >, " and ' as entities, after valid_utf8. Valid in HTML text,
// HTML attributes and XML (JUnit).
std::string markup_escape(std::string_view s);
// Markdown inline text (never at the start of a line): characters GitHub
// would read as markup there (\ ` * _ [ ] < > | ~) are backslash-escaped and
// newlines become spaces, after valid_utf8.
std::string markdown_escape(std::string_view s);
// Text inside a fenced code block: a fence in the text cannot end the block.
std::string markdown_code(std::string_view s);

}  // namespace cudiag::render
