#pragma once
// A bounds-checked, little-endian view of untrusted bytes: the inspected file
// (mmapped read-only), a section of it, or a decompressed head of an entry.
// Every read names what it was reading so a short file yields
// "truncated fatbin entry header at offset 0x1234" instead of a crash. Loads
// are assembled byte by byte (no casts of the mapping to structs): offsets in
// the file are not aligned and the host's struct layout is irrelevant.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cudiag::inspect {

// The bytes are not what the format says. `offset` is the file offset where
// the problem was found; inspect_bytes() turns this into "<file>: <what>".
class FormatError : public std::runtime_error {
 public:
  FormatError(const std::string& what, std::uint64_t offset);
  std::uint64_t offset() const { return offset_; }

 private:
  std::uint64_t offset_;
};

// "0x1a2b": how offsets appear in every message.
std::string hex(std::uint64_t value);

class ByteView {
 public:
  ByteView() = default;
  // `base` is the file offset of data[0], used only in messages.
  ByteView(const unsigned char* data, std::uint64_t size, std::uint64_t base = 0)
      : data_(data), size_(size), base_(base) {}
  explicit ByteView(std::string_view bytes, std::uint64_t base = 0)
      : data_(reinterpret_cast<const unsigned char*>(bytes.data())), size_(bytes.size()), base_(base) {}

  const unsigned char* data() const { return data_; }
  std::uint64_t size() const { return size_; }
  std::uint64_t base() const { return base_; }
  bool empty() const { return size_ == 0; }

  // True when [offset, offset + length) lies inside the view (overflow-safe).
  bool contains(std::uint64_t offset, std::uint64_t length) const {
    return offset <= size_ && length <= size_ - offset;
  }
  // Throws FormatError("truncated <what>", file offset) when the range does not fit.
  void require(std::uint64_t offset, std::uint64_t length, std::string_view what) const;
  ByteView sub(std::uint64_t offset, std::uint64_t length, std::string_view what) const {
    require(offset, length, what);
    return ByteView(data_ + offset, length, base_ + offset);
  }

  std::uint8_t u8(std::uint64_t offset, std::string_view what) const {
    require(offset, 1, what);
    return data_[offset];
  }
  std::uint16_t u16(std::uint64_t offset, std::string_view what) const {
    require(offset, 2, what);
    return static_cast<std::uint16_t>(data_[offset] | (data_[offset + 1] << 8));
  }
  std::uint32_t u32(std::uint64_t offset, std::string_view what) const {
    require(offset, 4, what);
    return load32(offset);
  }
  std::uint64_t u64(std::uint64_t offset, std::string_view what) const {
    require(offset, 8, what);
    return static_cast<std::uint64_t>(load32(offset)) |
           (static_cast<std::uint64_t>(load32(offset + 4)) << 32);
  }
  std::string_view bytes(std::uint64_t offset, std::uint64_t length, std::string_view what) const {
    require(offset, length, what);
    return {reinterpret_cast<const char*>(data_ + offset), static_cast<std::size_t>(length)};
  }
  // The NUL-terminated string at `offset`, at most `max_len` bytes; a string
  // that runs off the end of the view is cut there rather than rejected.
  std::string_view c_string(std::uint64_t offset, std::uint64_t max_len, std::string_view what) const;

 private:
  std::uint32_t load32(std::uint64_t offset) const {
    return static_cast<std::uint32_t>(data_[offset]) | (static_cast<std::uint32_t>(data_[offset + 1]) << 8) |
           (static_cast<std::uint32_t>(data_[offset + 2]) << 16) |
           (static_cast<std::uint32_t>(data_[offset + 3]) << 24);
  }

  const unsigned char* data_ = nullptr;
  std::uint64_t size_ = 0;
  std::uint64_t base_ = 0;
};

}  // namespace cudiag::inspect
