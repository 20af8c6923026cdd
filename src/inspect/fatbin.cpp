#include "inspect/fatbin.h"

#include <fmt/format.h>

namespace cudiag::inspect {

namespace {

// Entry header: a 64-byte fixed part, then a tail up to header_size.
//   +0x00 u16 kind            1 PTX, 2 ELF, 8 LTO IR
//   +0x02 u16 version         0x0101
//   +0x04 u32 header_size     >= 0x40; the tail holds identifier and options
//   +0x08 u64 payload_size    padded; next entry = entry + header_size + payload_size
//   +0x10 u32 compressed_size exact compressed length, 0 when stored
//   +0x14 u32 options_offset
//   +0x18 u16 minor, +0x1a u16 major   PTX: PTX ISA; ELF: cubin code version
//   +0x1c u32 arch            decimal SM / virtual arch (90, 100, 121)
//   +0x20 u32 identifier_offset, +0x24 u32 identifier_len
//   +0x28 u64 flags           compression and a/f bits, see fatbin.h
//   +0x30 u64 (unknown, non-zero for LTO IR)
//   +0x38 u64 uncompressed_size exact, 0 when stored
constexpr std::uint64_t kEntryFixedSize = 0x40;
constexpr std::uint64_t kBlobHeaderSize = 16;
// Identifiers are file names; anything longer is not one.
constexpr std::uint32_t kMaxIdentifier = 4096;

EntryKind kind_of(std::uint16_t raw) {
  switch (raw) {
    case 1:
      return EntryKind::kPtx;
    case 2:
      return EntryKind::kSass;
    case 8:
      return EntryKind::kLtoIr;
    default:
      return EntryKind::kUnknown;
  }
}

ArchVariant variant_of(std::uint64_t flags) {
  if (flags & kFlagVariantA) return ArchVariant::kA;
  if (flags & kFlagVariantF) return ArchVariant::kF;
  return ArchVariant::kNone;
}

FatbinEntry parse_entry(ByteView blob, std::uint64_t at, std::vector<std::string>& warnings) {
  ByteView h = blob.sub(at, kEntryFixedSize, "fatbin entry header");
  FatbinEntry e;
  e.offset = h.base();
  e.raw_kind = h.u16(0x00, "fatbin entry kind");
  e.kind = kind_of(e.raw_kind);
  std::uint16_t version = h.u16(0x02, "fatbin entry version");
  e.header_size = h.u32(0x04, "fatbin entry header size");
  e.payload_size = h.u64(0x08, "fatbin entry payload size");
  e.compressed_size = h.u32(0x10, "fatbin entry compressed size");
  e.version_minor = h.u16(0x18, "fatbin entry minor version");
  e.version_major = h.u16(0x1a, "fatbin entry major version");
  std::uint32_t arch = h.u32(0x1c, "fatbin entry arch");
  std::uint32_t ident_off = h.u32(0x20, "fatbin entry identifier offset");
  std::uint32_t ident_len = h.u32(0x24, "fatbin entry identifier length");
  e.flags = h.u64(0x28, "fatbin entry flags");
  e.uncompressed_size = h.u64(0x38, "fatbin entry uncompressed size");

  if (e.header_size < kEntryFixedSize)
    throw FormatError(fmt::format("fatbin entry header size {} is below 64", e.header_size), e.offset);
  // The whole header and the payload must lie inside the blob.
  blob.require(at, e.header_size, "fatbin entry header");
  blob.require(at + e.header_size, e.payload_size, "fatbin entry payload");
  if (arch > 9999)
    throw FormatError(fmt::format("fatbin entry arch {} is not an SM number", arch), e.offset + 0x1c);

  bool lz4 = (e.flags & kFlagLz4) != 0;
  bool zstd = (e.flags & kFlagZstd) != 0;
  if (lz4 && zstd)
    throw FormatError("fatbin entry flags claim both LZ4 and zstd compression", e.offset + 0x28);
  e.compression = zstd ? Compression::kZstd : lz4 ? Compression::kLz4 : Compression::kNone;
  if (e.compression != Compression::kNone && e.compressed_size > e.payload_size)
    throw FormatError(fmt::format("fatbin entry compressed size {} exceeds its payload size {}",
                                  e.compressed_size, e.payload_size),
                      e.offset + 0x10);
  e.arch = GpuArch::from_number(arch, variant_of(e.flags));

  if (version != 0x0101)
    warnings.push_back(fmt::format("fatbin entry at {} has header version {:#06x} (expected 0x0101)",
                                   hex(e.offset), version));
  if (ident_off != 0 && ident_len != 0 && ident_len <= kMaxIdentifier) {
    ByteView header = blob.sub(at, e.header_size, "fatbin entry header");
    if (ident_off >= kEntryFixedSize && header.contains(ident_off, ident_len))
      e.identifier = std::string(header.c_string(ident_off, ident_len, "fatbin entry identifier"));
  }
  return e;
}

}  // namespace

void walk_fatbin_region(ByteView region, const std::string& section, const std::string& member,
                        std::vector<FatbinBlob>& blobs, std::vector<FatbinEntry>& entries,
                        std::vector<std::string>& warnings,
                        const std::function<void(std::uint64_t)>& on_blob) {
  std::uint64_t at = 0;
  while (at < region.size()) {
    // Padding: zeros up to the next 8-aligned blob. Anything else that is not
    // a blob header is corruption, reported where it starts.
    if (!region.contains(at, 4)) {
      if (region.u8(at, "fatbin padding") == 0) {
        ++at;
        continue;
      }
      region.require(at, kBlobHeaderSize, "fatbin header");
    }
    std::uint32_t magic = region.u32(at, "fatbin header");
    if (magic == 0) {
      at += 4;
      continue;
    }
    if (magic == kLegacyFatbinMagic) {
      warnings.push_back(
          fmt::format("legacy pre-CUDA-4 fatbin at {} is not supported", hex(region.base() + at)));
      return;
    }
    if (magic != kFatbinMagic)
      throw FormatError(fmt::format("bad fatbin magic {:#010x}", magic), region.base() + at);
    region.require(at, kBlobHeaderSize, "fatbin header");
    std::uint16_t version = region.u16(at + 4, "fatbin header");
    std::uint16_t header_size = region.u16(at + 6, "fatbin header");
    std::uint64_t fat_size = region.u64(at + 8, "fatbin header");
    if (version != 1)
      throw FormatError(fmt::format("unsupported fatbin version {}", version), region.base() + at + 4);
    if (header_size < kBlobHeaderSize || header_size % 8 != 0)
      throw FormatError(fmt::format("bad fatbin header size {}", header_size), region.base() + at + 6);
    ByteView blob_view = region.sub(at, header_size, "fatbin header");
    if (!region.contains(at + header_size, fat_size))
      throw FormatError(fmt::format("truncated fatbin (its header claims {} bytes of entries, {} remain)",
                                    fat_size, region.size() - at - header_size),
                        region.base() + at);
    blob_view = region.sub(at + header_size, fat_size, "fatbin entries");

    FatbinBlob blob;
    blob.section = section;
    blob.member = member;
    blob.offset = region.base() + at;
    blob.size = header_size + fat_size;
    std::size_t blob_index = blobs.size();
    blobs.push_back(blob);

    std::uint64_t pos = 0;
    while (pos < blob_view.size()) {
      FatbinEntry e = parse_entry(blob_view, pos, warnings);
      e.blob = blob_index;
      pos += e.header_size + e.payload_size;  // both bounded by the blob above
      entries.push_back(std::move(e));
      ++blobs[blob_index].entry_count;
    }
    at += header_size + fat_size;
    if (on_blob) on_blob(at);
  }
}

std::string kind_name(EntryKind kind) {
  switch (kind) {
    case EntryKind::kSass:
      return "sass";
    case EntryKind::kPtx:
      return "ptx";
    case EntryKind::kLtoIr:
      return "lto_ir";
    case EntryKind::kUnknown:
      break;
  }
  return "unknown";
}

std::string compression_name(Compression compression) {
  switch (compression) {
    case Compression::kLz4:
      return "lz4";
    case Compression::kZstd:
      return "zstd";
    case Compression::kNone:
      break;
  }
  return "none";
}

std::string entry_arch_name(const FatbinEntry& entry) {
  switch (entry.kind) {
    case EntryKind::kSass:
      return sm_name(entry.arch);
    case EntryKind::kPtx:
      return compute_name(entry.arch);
    case EntryKind::kLtoIr:
      return fmt::format("lto_{}{}", entry.arch.number(), variant_suffix(entry.arch.variant));
    case EntryKind::kUnknown:
      break;
  }
  return fmt::format("kind{}_{}", entry.raw_kind, entry.arch.number());
}

std::optional<PtxIsa> FatbinEntry::ptx_isa() const {
  if (kind != EntryKind::kPtx) return std::nullopt;
  if (version_major != 0 || version_minor != 0) return PtxIsa{version_major, version_minor};
  return ptx_text_version;
}

std::uint64_t FatbinEntry::content_size() const {
  return compression == Compression::kNone ? payload_size : uncompressed_size;
}

}  // namespace cudiag::inspect
