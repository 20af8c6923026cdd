#include "inspect/byte_view.h"

#include <fmt/format.h>

#include <cstring>

namespace cudiag::inspect {

FormatError::FormatError(const std::string& what, std::uint64_t offset)
    : std::runtime_error(fmt::format("{} at offset {}", what, hex(offset))), offset_(offset) {}

std::string hex(std::uint64_t value) { return fmt::format("{:#x}", value); }

void ByteView::require(std::uint64_t offset, std::uint64_t length, std::string_view what) const {
  if (contains(offset, length)) return;
  // Point at where the missing bytes should have started (or at the end of
  // the data when the start itself is past it).
  std::uint64_t at = offset <= size_ ? offset : size_;
  throw FormatError(fmt::format("truncated {}", what), base_ + at);
}

std::string_view ByteView::c_string(std::uint64_t offset, std::uint64_t max_len,
                                    std::string_view what) const {
  require(offset, 0, what);
  std::uint64_t avail = size_ - offset;
  std::uint64_t limit = avail < max_len ? avail : max_len;
  const void* nul = std::memchr(data_ + offset, 0, static_cast<std::size_t>(limit));
  std::uint64_t len =
      nul ? static_cast<std::uint64_t>(static_cast<const unsigned char*>(nul) - (data_ + offset)) : limit;
  return {reinterpret_cast<const char*>(data_ + offset), static_cast<std::size_t>(len)};
}

}  // namespace cudiag::inspect
