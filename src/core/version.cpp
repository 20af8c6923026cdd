#include "core/version.h"

#include <fmt/format.h>

#include <charconv>

namespace cudiag {

std::optional<Version> Version::parse(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == 'v' || text.front() == 'V'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  Version v;
  std::size_t i = 0;
  while (i < text.size()) {
    long value = 0;
    auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + text.size(), value);
    if (ec != std::errc() || value < 0) return std::nullopt;
    v.parts_.push_back(value);
    i = static_cast<std::size_t>(ptr - text.data());
    if (i == text.size()) break;
    if (text[i] != '.' || i + 1 == text.size()) return std::nullopt;
    ++i;
    if (v.parts_.size() > 8) return std::nullopt;
  }
  v.text_ = std::string(text);
  return v;
}

Version Version::from_cuda_int(long encoded) {
  Version v;
  v.parts_ = {encoded / 1000, (encoded % 1000) / 10};
  v.text_ = fmt::format("{}.{}", v.parts_[0], v.parts_[1]);
  return v;
}

std::strong_ordering Version::operator<=>(const Version& other) const {
  auto n = std::max(parts_.size(), other.parts_.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (auto c = part(i) <=> other.part(i); c != 0) return c;
  }
  return std::strong_ordering::equal;
}

}  // namespace cudiag
