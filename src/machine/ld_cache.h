#pragma once
// Reads /etc/ld.so.cache, the dynamic loader's index of sonames to paths.
// glibc offers no API for it, and `ldconfig -p` would mean running a program,
// so cudiag parses the file itself.
//
// Layout (glibc elf/dl-cache.h). Newer glibc writes only the new format; older
// ones write the old format first and the new one after it, 8-byte aligned:
//   old: "ld.so-1.7.0" (11 bytes) + pad to 12 | u32 nlibs | nlibs x {i32 flags, u32 key, u32 value}
//   new: "glibc-ld.so.cache1.1" (20 bytes) | u32 nlibs | u32 len_strings | u8 flags | 3 pad
//        | u32 extension_offset | 3 x u32 unused      (48 bytes in all)
//        | nlibs x {i32 flags, u32 key, u32 value, u32 osversion, u64 hwcap} (24 bytes each)
//        | strings. key/value are offsets from the start of the new header.
// Entries are in the loader's search order: the first match for a soname wins.
#include <string>
#include <string_view>
#include <vector>

namespace cudiag::machine {

struct LdCacheEntry {
  std::string soname;
  std::string path;
  int flags = 0;
  bool x86_64() const { return (flags & 0xff00) == 0x0300; }
  bool aarch64() const { return (flags & 0xff00) == 0x0a00; }
};

struct LdCache {
  std::vector<LdCacheEntry> entries;
  std::string format;  // "new", "old", "old+new"
  std::string error;   // non-empty when the file could not be parsed; entries then holds what was read
};

LdCache parse_ld_cache(std::string_view bytes);

}  // namespace cudiag::machine
