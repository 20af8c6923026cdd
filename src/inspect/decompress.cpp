#include "inspect/decompress.h"

#include <fmt/format.h>
#include <lz4.h>
#include <zstd.h>

#include <memory>

namespace cudiag::inspect {

namespace {

struct DctxFree {
  void operator()(ZSTD_DCtx* ctx) const { ZSTD_freeDCtx(ctx); }
};

std::string zstd_head(ByteView src, std::size_t want, std::uint64_t entry_offset) {
  std::unique_ptr<ZSTD_DCtx, DctxFree> ctx(ZSTD_createDCtx());
  if (!ctx) throw std::bad_alloc();
  ZSTD_DCtx_setParameter(ctx.get(), ZSTD_d_windowLogMax, kMaxZstdWindowLog);
  std::string out(want, '\0');
  ZSTD_inBuffer in{src.data(), static_cast<std::size_t>(src.size()), 0};
  ZSTD_outBuffer dst{out.data(), out.size(), 0};
  // Streaming stops as soon as `want` bytes are out, so a cubin's ELF header
  // costs one block, not the whole image.
  while (dst.pos < dst.size) {
    std::size_t in_before = in.pos;
    std::size_t out_before = dst.pos;
    std::size_t rc = ZSTD_decompressStream(ctx.get(), &dst, &in);
    if (ZSTD_isError(rc))
      throw FormatError(fmt::format("bad zstd data in fatbin entry ({})", ZSTD_getErrorName(rc)),
                        entry_offset);
    if (rc == 0) break;  // frame complete
    // Neither input taken nor output made: the frame ends early.
    if (in.pos == in_before && dst.pos == out_before)
      throw FormatError("truncated zstd data in fatbin entry", entry_offset);
  }
  out.resize(dst.pos);
  return out;
}

std::string lz4_head(ByteView src, std::size_t want, std::uint64_t entry_offset) {
  std::string out(want, '\0');
  if (src.size() > static_cast<std::uint64_t>(LZ4_MAX_INPUT_SIZE))
    throw FormatError("LZ4 data in fatbin entry is too large", entry_offset);
  int n = LZ4_decompress_safe_partial(reinterpret_cast<const char*>(src.data()), out.data(),
                                      static_cast<int>(src.size()), static_cast<int>(want),
                                      static_cast<int>(want));
  if (n < 0) throw FormatError("bad LZ4 data in fatbin entry", entry_offset);
  out.resize(static_cast<std::size_t>(n));
  return out;
}

}  // namespace

std::string read_entry_head(ByteView file, const FatbinEntry& entry, std::size_t want) {
  std::uint64_t payload_at = entry.offset + entry.header_size;
  std::uint64_t content = entry.content_size();
  if (want > content) want = static_cast<std::size_t>(content);
  if (want == 0) return {};
  switch (entry.compression) {
    case Compression::kNone:
      return std::string(file.bytes(payload_at, want, "fatbin entry payload"));
    case Compression::kZstd:
      return zstd_head(file.sub(payload_at, entry.compressed_size, "fatbin entry payload"), want,
                       entry.offset);
    case Compression::kLz4:
      return lz4_head(file.sub(payload_at, entry.compressed_size, "fatbin entry payload"), want,
                      entry.offset);
  }
  return {};
}

}  // namespace cudiag::inspect
