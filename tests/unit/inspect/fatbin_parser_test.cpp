// Parser behaviour on hand-built fatbins: the layouts nvcc does not produce
// on demand (truncation, padding, unknown kinds, corrupt sizes).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include "fatbin_builder.h"
#include "inspect/decompress.h"
#include "inspect/inspect.h"
#include "inspect/listing.h"
#include "inspect/ptx_text.h"

namespace cudiag::inspect {
namespace {

using inspect_test::blob_bytes;
using inspect_test::cubin_header;
using inspect_test::entry_bytes;
using inspect_test::EntrySpec;

InspectResult parse(const std::string& bytes, InspectOptions options = {}) {
  return inspect_bytes(ByteView(bytes), "t.fatbin", options);
}

TEST(FatbinParserTest, WalksBlobsEntriesAndPadding) {
  EntrySpec sass;
  sass.payload = cubin_header(8, 0x06005a04);
  sass.flags = 0x100011;  // sm_90a
  sass.arch = 90;
  EntrySpec ptx;
  ptx.kind = 1;
  ptx.arch = 120;
  ptx.major = 9;
  ptx.minor = 0;
  ptx.header_size = 0x50;  // a tail after the fixed 64 bytes must be skipped
  ptx.payload = "\n\n.version 9.0\n.target sm_120\n";
  // LTO IR as nvcc writes it: flags 0x18011 carry the zstd bit and the
  // header gives compressed and uncompressed sizes (cuobjdump calls the entry
  // "compressed"), so the summary must not claim everything is uncompressed.
  EntrySpec lto;
  lto.kind = 8;
  lto.flags = 0x18011;
  lto.compressed_size = 16;
  lto.uncompressed_size = 24;
  EntrySpec future;
  future.kind = 16;  // an unknown kind is listed, not fatal
  std::string bytes = blob_bytes(entry_bytes(sass) + entry_bytes(ptx)) + std::string(8, '\0') +
                      blob_bytes("") + blob_bytes(entry_bytes(lto) + entry_bytes(future));
  auto r = parse(bytes);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.type, FileType::kFatbin);
  ASSERT_EQ(r.blobs.size(), 3u);
  EXPECT_EQ(r.blobs[1].entry_count, 0u);  // fat_size 0: an empty blob
  ASSERT_EQ(r.entries.size(), 4u);
  EXPECT_EQ(entry_arch_name(r.entries[0]), "sm_90a");
  ASSERT_TRUE(r.entries[0].cubin);  // uncompressed: its ELF header is read for free
  EXPECT_EQ(r.entries[0].cubin->sm, 90);
  EXPECT_EQ(entry_arch_name(r.entries[1]), "compute_120");
  EXPECT_EQ(r.entries[1].ptx_isa()->text(), "9.0");
  EXPECT_EQ(r.entries[2].kind, EntryKind::kLtoIr);
  EXPECT_EQ(r.entries[3].kind, EntryKind::kUnknown);
  EXPECT_EQ(r.entries[3].raw_kind, 16);
  EXPECT_EQ(summary_line(r),
            "SASS sm_90a · PTX compute_120 (ISA 9.0) · LTO-IR lto_80 · 1 unknown · 4 entries, none+zstd");
  EXPECT_EQ(cuobjdump_listing(r, "dir/t.fatbin"),
            "ELF file    1: t.1.sm_90a.cubin\nPTX file    1: t.1.sm_120.ptx\n");
}

TEST(FatbinParserTest, TruncationNamesTheFileAndOffset) {
  std::string full = blob_bytes(entry_bytes(EntrySpec{}));
  // Cut inside the blob header, inside the entry header, inside the payload.
  EXPECT_EQ(parse(full.substr(0, 10)).error, "t.fatbin: truncated fatbin header at offset 0x0");
  auto r = parse(full.substr(0, 16 + 30));
  EXPECT_EQ(r.error,
            "t.fatbin: truncated fatbin (its header claims 80 bytes of entries, 30 remain) at offset 0x0");
  // A blob whose size is right but whose entry claims more payload than it has.
  std::string e = entry_bytes(EntrySpec{});
  inspect_test::put(e, 0x08, 4096, 8);
  EXPECT_EQ(parse(blob_bytes(e)).error, "t.fatbin: truncated fatbin entry payload at offset 0x50");
  std::string e2 = entry_bytes(EntrySpec{});
  inspect_test::put(e2, 0x04, 0x20, 4);
  EXPECT_EQ(parse(blob_bytes(e2)).error, "t.fatbin: fatbin entry header size 32 is below 64 at offset 0x10");
}

TEST(FatbinParserTest, CorruptionIsAnErrorAndEarlierEntriesAreKept) {
  std::string good = blob_bytes(entry_bytes(EntrySpec{}));
  std::string bad = good;
  inspect_test::put(bad, 0, 0xdeadbeef, 4);
  auto r = parse(good + bad);
  EXPECT_EQ(r.error, fmt::format("t.fatbin: bad fatbin magic 0xdeadbeef at offset {:#x}", good.size()));
  EXPECT_EQ(r.entries.size(), 1u);
  std::string v2 = good;
  inspect_test::put(v2, 4, 2, 2);
  EXPECT_EQ(parse(v2).error, "t.fatbin: unsupported fatbin version 2 at offset 0x4");
  EntrySpec both;
  both.flags = 0xa011;  // LZ4 and zstd at once
  EXPECT_EQ(parse(blob_bytes(entry_bytes(both))).error,
            "t.fatbin: fatbin entry flags claim both LZ4 and zstd compression at offset 0x38");
  EntrySpec big;
  big.flags = 0x8011;
  big.compressed_size = 1000;
  EXPECT_EQ(parse(blob_bytes(entry_bytes(big))).error,
            "t.fatbin: fatbin entry compressed size 1000 exceeds its payload size 16 at offset 0x20");
}

// Compressed payloads made here with the same libraries nvcc's formats use.
TEST(FatbinParserTest, DecompressesZstdAndLz4HeadsOnlyWhenAsked) {
  std::string cubin = cubin_header(7, 0x005a055a) + std::string(100000, 'k');
  std::string z(ZSTD_compressBound(cubin.size()), '\0');
  z.resize(ZSTD_compress(z.data(), z.size(), cubin.data(), cubin.size(), 3));
  std::string l(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(cubin.size()))), '\0');
  l.resize(static_cast<std::size_t>(LZ4_compress_default(
      cubin.data(), l.data(), static_cast<int>(cubin.size()), static_cast<int>(l.size()))));
  EntrySpec ez;
  ez.arch = 90;
  ez.flags = 0x8011;
  ez.payload = z;
  ez.compressed_size = static_cast<std::uint32_t>(z.size());
  ez.uncompressed_size = cubin.size();
  EntrySpec el = ez;
  el.flags = 0x2011;
  el.payload = l;
  el.compressed_size = static_cast<std::uint32_t>(l.size());
  std::string bytes = blob_bytes(entry_bytes(ez) + entry_bytes(el));

  auto shallow = parse(bytes);
  ASSERT_TRUE(shallow.ok()) << shallow.error;
  EXPECT_FALSE(shallow.entries[0].cubin);
  EXPECT_EQ(shallow.entries[0].compression, Compression::kZstd);
  EXPECT_EQ(shallow.entries[1].compression, Compression::kLz4);

  InspectOptions deep;
  deep.read_payload_heads = true;
  auto r = parse(bytes, deep);
  ASSERT_TRUE(r.ok()) << r.error;
  for (const auto& e : r.entries) {
    ASSERT_TRUE(e.cubin) << compression_name(e.compression);
    EXPECT_EQ(e.cubin->abi_version, 7);
    EXPECT_EQ(e.cubin->sm, 90);  // ABI 7: SM in the low byte
    EXPECT_EQ(e.cubin->virtual_sm, 90);
    EXPECT_EQ(read_entry_head(ByteView(bytes), e, 200), cubin.substr(0, 200));
  }
  EXPECT_TRUE(r.warnings.empty());

  // Corrupt compressed bytes: an error at the entry, only when decoded.
  std::string broken = bytes;
  broken[16 + 64] ^= 0x5a;  // the zstd frame magic
  auto rb = parse(broken, deep);
  EXPECT_TRUE(rb.error.starts_with("t.fatbin: bad zstd data in fatbin entry (")) << rb.error;
  EXPECT_TRUE(rb.error.ends_with(") at offset 0x10")) << rb.error;
}

TEST(FatbinParserTest, CubinHeaderEncodings) {
  struct Case {
    std::uint8_t abi;
    std::uint32_t flags;
    int sm;
  } cases[] = {
      {8, 0x06004b04, 75}, {8, 0x06005a04, 90}, {8, 0x06006402, 100}, {8, 0x06007902, 121},
      {7, 0x005a055a, 90}, {7, 0x00500550, 80}, {9, 0x06005a04, 0},  // unknown ABI: SM not guessed
  };
  for (const auto& c : cases) {
    std::string h = cubin_header(c.abi, c.flags);
    auto parsed = parse_cubin_header(ByteView(h));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->sm, c.sm) << std::hex << c.flags;
  }
  std::string h = cubin_header(8, 0x06005a04);
  h[0x12] = 62;  // x86-64, not EM_CUDA
  EXPECT_FALSE(parse_cubin_header(ByteView(h)));
  EXPECT_FALSE(
      parse_cubin_header(ByteView(std::string_view("\x7f"
                                                   "ELF"))));
}

TEST(FatbinParserTest, PtxHeadSkipsBlankLinesAndComments) {
  auto h = parse_ptx_head(
      "\n\n// Generated by NVIDIA NVVM Compiler\n/* x */\n.version 8.4\n.target sm_90a, debug\n.address_size "
      "64\n");
  ASSERT_TRUE(h.version);
  EXPECT_EQ(h.version->text(), "8.4");
  EXPECT_EQ(h.target, "sm_90a, debug");
  auto stripped = parse_ptx_head("\n.target sm_80\n.address_size 64\n");  // nvfatbin drops .version
  EXPECT_FALSE(stripped.version);
  EXPECT_EQ(stripped.target, "sm_80");
  EXPECT_FALSE(parse_ptx_head(".vers").version);
}

TEST(FatbinParserTest, NotABinaryIsNotAnError) {
  auto r = parse("just some text that is long enough");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.type, FileType::kNotBinary);
  EXPECT_EQ(parse("").type, FileType::kNotBinary);
}

}  // namespace
}  // namespace cudiag::inspect
