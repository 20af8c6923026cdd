#include "machine/ld_cache.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>

namespace cudiag::machine {

namespace {

constexpr std::string_view kOldMagic = "ld.so-1.7.0";
constexpr std::string_view kNewMagic = "glibc-ld.so.cache1.1";
constexpr std::size_t kOldHeaderSize = 16;
constexpr std::size_t kOldEntrySize = 12;
constexpr std::size_t kNewHeaderSize = 48;
constexpr std::size_t kNewEntrySize = 24;

std::uint32_t read_u32(std::string_view bytes, std::size_t offset) {
  std::uint32_t v = 0;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

// A NUL-terminated string at `offset`, or nullopt when it runs off the end.
bool read_cstring(std::string_view bytes, std::size_t offset, std::string& out) {
  if (offset >= bytes.size()) return false;
  auto end = bytes.find('\0', offset);
  if (end == std::string_view::npos) return false;
  out.assign(bytes.substr(offset, end - offset));
  return true;
}

void parse_new(std::string_view cache, LdCache& result) {
  if (cache.size() < kNewHeaderSize) {
    result.error = fmt::format("truncated header: {} bytes, need {}", cache.size(), kNewHeaderSize);
    return;
  }
  std::uint32_t nlibs = read_u32(cache, 20);
  std::size_t table_end = kNewHeaderSize + std::size_t{nlibs} * kNewEntrySize;
  if (table_end > cache.size()) {
    result.error = fmt::format("truncated: header says {} entries ({} bytes) but the file has {} bytes",
                               nlibs, table_end, cache.size());
    nlibs = static_cast<std::uint32_t>((cache.size() - kNewHeaderSize) / kNewEntrySize);
  }
  for (std::uint32_t i = 0; i < nlibs; ++i) {
    std::size_t at = kNewHeaderSize + std::size_t{i} * kNewEntrySize;
    LdCacheEntry entry;
    entry.flags = static_cast<int>(read_u32(cache, at));
    if (!read_cstring(cache, read_u32(cache, at + 4), entry.soname) ||
        !read_cstring(cache, read_u32(cache, at + 8), entry.path)) {
      if (result.error.empty()) result.error = fmt::format("entry {} points outside the file", i);
      continue;
    }
    result.entries.push_back(std::move(entry));
  }
}

}  // namespace

LdCache parse_ld_cache(std::string_view bytes) {
  LdCache result;
  if (bytes.substr(0, kNewMagic.size()) == kNewMagic) {
    result.format = "new";
    parse_new(bytes, result);
    return result;
  }
  if (bytes.substr(0, kOldMagic.size()) != kOldMagic) {
    result.error = "not an ld.so.cache file (unknown magic)";
    return result;
  }
  if (bytes.size() < kOldHeaderSize) {
    result.error = "truncated old-format header";
    return result;
  }
  std::uint32_t nlibs = read_u32(bytes, 12);
  std::size_t old_end = kOldHeaderSize + std::size_t{nlibs} * kOldEntrySize;
  if (old_end > bytes.size()) {
    result.error = fmt::format("truncated: old-format header says {} entries but the file has {} bytes",
                               nlibs, bytes.size());
    return result;
  }
  std::size_t new_start = (old_end + 7) & ~std::size_t{7};
  if (new_start < bytes.size() && bytes.substr(new_start, kNewMagic.size()) == kNewMagic) {
    result.format = "old+new";
    parse_new(bytes.substr(new_start), result);
    return result;
  }
  // Old format only: string offsets are from the end of the entry table.
  result.format = "old";
  std::string_view strings = bytes.substr(old_end);
  for (std::uint32_t i = 0; i < nlibs; ++i) {
    std::size_t at = kOldHeaderSize + std::size_t{i} * kOldEntrySize;
    LdCacheEntry entry;
    entry.flags = static_cast<int>(read_u32(bytes, at));
    if (!read_cstring(strings, read_u32(bytes, at + 4), entry.soname) ||
        !read_cstring(strings, read_u32(bytes, at + 8), entry.path)) {
      if (result.error.empty()) result.error = fmt::format("entry {} points outside the file", i);
      continue;
    }
    result.entries.push_back(std::move(entry));
  }
  return result;
}

}  // namespace cudiag::machine
