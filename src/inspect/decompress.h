#pragma once
// Reads the start of a fatbin entry's content, decompressing only as much as
// asked for. Compressed payloads are zstd frames (flag 0x8000, CUDA 13's
// default) or raw LZ4 blocks without a frame header (flag 0x2000, older
// toolkits and -compress-mode=speed); fatbin-format.md section 7.
#include <cstdint>
#include <string>

#include "inspect/byte_view.h"
#include "inspect/fatbin.h"

namespace cudiag::inspect {

// zstd frames declaring a window larger than this are refused, which caps
// what one entry can make cudiag allocate (128 MiB; ZLUDA caps its buffers at 64 MiB).
inline constexpr int kMaxZstdWindowLog = 27;

// Up to `want` bytes from the start of `entry`'s content (fewer when the
// content is shorter). `file` is the whole file the entry's offset refers to.
// Throws FormatError naming the entry's offset when the compressed data is bad.
std::string read_entry_head(ByteView file, const FatbinEntry& entry, std::size_t want);

}  // namespace cudiag::inspect
