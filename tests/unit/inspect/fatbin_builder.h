#pragma once
// Builds fatbin bytes by the documented layout (fatbin-format.md sections 3-5),
// for parser tests that need exact control: truncation at a known offset,
// padding, unknown kinds, bad sizes. Real-world layouts are covered by the
// nvcc builds and the libraries in /usr/local/cuda.
#include <cstdint>
#include <string>

namespace cudiag::inspect_test {

inline void put(std::string& s, std::size_t at, std::uint64_t v, int bytes) {
  if (s.size() < at + static_cast<std::size_t>(bytes)) s.resize(at + static_cast<std::size_t>(bytes), '\0');
  for (int i = 0; i < bytes; ++i)
    s[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}

struct EntrySpec {
  std::uint16_t kind = 2;
  std::uint32_t arch = 80;
  std::uint16_t major = 1, minor = 8;
  std::uint64_t flags = 0x11;
  std::string payload = std::string(16, 'x');
  std::uint32_t compressed_size = 0;
  std::uint64_t uncompressed_size = 0;
  std::uint32_t header_size = 64;
};

inline std::string entry_bytes(const EntrySpec& e) {
  std::string s(e.header_size, '\0');
  std::string payload = e.payload;
  payload.resize((payload.size() + 7) / 8 * 8, '\0');
  put(s, 0x00, e.kind, 2);
  put(s, 0x02, 0x0101, 2);
  put(s, 0x04, e.header_size, 4);
  put(s, 0x08, payload.size(), 8);
  put(s, 0x10, e.compressed_size, 4);
  put(s, 0x18, e.minor, 2);
  put(s, 0x1a, e.major, 2);
  put(s, 0x1c, e.arch, 4);
  put(s, 0x28, e.flags, 8);
  put(s, 0x38, e.uncompressed_size, 8);
  return s + payload;
}

inline std::string blob_bytes(const std::string& entries) {
  std::string s;
  put(s, 0, 0xBA55ED50, 4);
  put(s, 4, 1, 2);
  put(s, 6, 16, 2);
  put(s, 8, entries.size(), 8);
  return s + entries;
}

// A minimal CUDA ELF header (64 bytes) for cubin payloads.
inline std::string cubin_header(std::uint8_t abi_version, std::uint32_t e_flags, std::uint16_t e_type = 2) {
  std::string s = std::string(
      "\x7f"
      "ELF",
      4);
  s.resize(64, '\0');
  s[4] = 2;
  s[5] = 1;
  s[6] = 1;
  s[7] = static_cast<char>(abi_version == 7 ? 0x33 : 0x41);
  s[8] = static_cast<char>(abi_version);
  put(s, 0x10, e_type, 2);
  put(s, 0x12, 190, 2);
  put(s, 0x30, e_flags, 4);
  return s;
}

}  // namespace cudiag::inspect_test
