#include "inspect/inspect.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "core/errors.h"
#include "inspect/archive.h"
#include "inspect/cubin.h"
#include "inspect/decompress.h"
#include "inspect/elf.h"
#include "inspect/mapped_file.h"
#include "inspect/ptx_text.h"

namespace cudiag::inspect {

namespace {

// Section names from NVIDIA's fatbinary_section.h (facts only, see
// fatbin-format.md section 1): linked code, and relocatable -rdc code.
constexpr std::string_view kFatbinSection = ".nv_fatbin";
constexpr std::string_view kRelFatbinSection = "__nv_relfatbin";
// Wrappers `{u32 magic 0x466243B1, u32 version, u64 data VA, u64 filename_or_fatbins}`;
// version 2 marks the device-link blob.
constexpr std::string_view kWrapperSection = ".nvFatBinSegment";
constexpr std::uint32_t kWrapperMagic = 0x466243B1;
constexpr std::uint64_t kWrapperSize = 24;
// How much PTX text to decompress to find `.version` and `.target`.
constexpr std::size_t kPtxHeadBytes = 4096;
constexpr std::size_t kElfHeadBytes = 64;
// Page-release granularity for big sections (see MappedFile::release): the
// file pages resident at once stay below this, whatever the file's size.
constexpr std::uint64_t kReleaseChunk = 8ull << 20;

struct Context {
  ByteView file;  // the whole file: entry offsets are relative to it
  const InspectOptions& options;
  const MappedFile* mapping;  // null for in-memory input
  InspectResult& result;
};

bool is_fatbin_section(const ElfSection& s) {
  return s.type != kShtNobits && (s.name == kFatbinSection || s.name == kRelFatbinSection);
}

// Walks a fatbin section, releasing the pages behind it every
// kReleaseChunk bytes so a 139 MB section never ends up resident.
void walk_region(Context& ctx, ByteView region, const std::string& section, const std::string& member) {
  std::uint64_t released = 0;
  auto release = [&](std::uint64_t done) {
    if (!ctx.mapping || done - released < kReleaseChunk) return;
    ctx.mapping->release(region.base() + released, done - released);
    released = done;
  };
  walk_fatbin_region(region, section, member, ctx.result.blobs, ctx.result.entries, ctx.result.warnings,
                     release);
  release(region.size() + kReleaseChunk);
}

// A blob header worth trying at `at`: magic, version 1, header size 16 and
// a size that fits.
bool plausible_blob(ByteView s, std::uint64_t at) {
  const unsigned char* p = s.data() + at;
  std::uint32_t magic = static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
                        (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
  if (magic != kFatbinMagic) return false;
  return s.u16(at + 4, "fatbin header") == 1 && s.u16(at + 6, "fatbin header") == 16 &&
         s.contains(at + 16, s.u64(at + 8, "fatbin header"));
}

// Fatbins embedded in data sections (or, without a section table, in loaded
// segments) are found by scanning 8-aligned offsets for a plausible header.
// A candidate that does not parse is dropped as a false match, not an error.
void scan_embedded(Context& ctx, ByteView s, const std::string& section, const std::string& member) {
  // Offsets in `s` whose file offset is a multiple of 8.
  auto align_up = [&](std::uint64_t x) { return x + (8 - (s.base() + x) % 8) % 8; };
  std::uint64_t at = align_up(0);
  std::uint64_t released = 0;
  while (at + 16 <= s.size()) {
    if (ctx.mapping && at - released >= kReleaseChunk) {
      ctx.mapping->release(s.base() + released, at - released);
      released = at;
    }
    if (ctx.mapping) {
      // A hole of a sparse file is zeros: no magic in it.
      std::uint64_t data = ctx.mapping->next_data(s.base() + at);
      if (data > s.base() + at) {
        at = align_up(data - s.base());
        released = std::min(at, s.size());
        continue;
      }
    }
    // memchr for the magic's first byte skips most of the data at memory
    // speed; it searches one release window at a time so the pages behind it
    // can go before the next window is touched.
    std::uint64_t end = s.size() - 15;
    std::uint64_t window_end = ctx.mapping ? std::min(end, released + kReleaseChunk) : end;
    const void* hit =
        std::memchr(s.data() + at, kFatbinMagic & 0xff, static_cast<std::size_t>(window_end - at));
    if (!hit) {
      at = align_up(window_end);
      continue;
    }
    std::uint64_t found = static_cast<std::uint64_t>(static_cast<const unsigned char*>(hit) - s.data());
    if (align_up(found) != found) {
      at = align_up(found);
      continue;
    }
    at = found;
    if (!plausible_blob(s, at)) {
      at += 8;
      continue;
    }
    std::uint64_t len = 16 + s.u64(at + 8, "fatbin header");
    std::size_t blobs_before = ctx.result.blobs.size(), entries_before = ctx.result.entries.size();
    std::size_t warnings_before = ctx.result.warnings.size();
    try {
      walk_fatbin_region(s.sub(at, len, "fatbin"), section, member, ctx.result.blobs, ctx.result.entries,
                         ctx.result.warnings);
      for (std::size_t i = blobs_before; i < ctx.result.blobs.size(); ++i)
        ctx.result.blobs[i].embedded = true;
      at += (len + 7) / 8 * 8;
    } catch (const FormatError&) {
      ctx.result.blobs.resize(blobs_before);
      ctx.result.entries.resize(entries_before);
      ctx.result.warnings.resize(warnings_before);
      at += 8;
    }
  }
  if (ctx.mapping && s.size() > released) ctx.mapping->release(s.base() + released, s.size() - released);
}

// Data sections that may hold embedded fatbins; code, symbol, debug and
// relocation sections never do.
bool may_embed_fatbins(const ElfSection& s) {
  constexpr std::uint32_t kShtProgbits = 1;
  if (s.type != kShtProgbits || s.size < 16) return false;
  std::string_view n = s.name;
  return n.starts_with(".rodata") || n.starts_with(".data") || n.starts_with(".ldata") ||
         n.starts_with(".lrodata");
}

// Marks blobs that a version-2 wrapper points at as device-link output.
void mark_device_link_blobs(Context& ctx, const ElfFile& elf, ByteView image, std::size_t first_blob) {
  const ElfSection* wrappers = elf.find_section(kWrapperSection);
  const ElfSection* fatbin = elf.find_section(kFatbinSection);
  if (!wrappers || !fatbin || wrappers->type == kShtNobits) return;
  if (!image.contains(wrappers->offset, wrappers->size)) return;  // only a cross-check: never fatal
  ByteView w = image.sub(wrappers->offset, wrappers->size, "fatbin wrapper section");
  for (std::uint64_t at = 0; at + kWrapperSize <= w.size(); at += kWrapperSize) {
    if (w.u32(at, "fatbin wrapper") != kWrapperMagic || w.u32(at + 4, "fatbin wrapper") != 2) continue;
    std::uint64_t va = w.u64(at + 8, "fatbin wrapper");
    if (va < fatbin->addr || va - fatbin->addr >= fatbin->size) continue;
    std::uint64_t file_off = image.base() + fatbin->offset + (va - fatbin->addr);
    for (std::size_t i = first_blob; i < ctx.result.blobs.size(); ++i)
      if (ctx.result.blobs[i].offset == file_off) ctx.result.blobs[i].device_link = true;
  }
}

// Without a section table: scan the loaded segments.
void scan_segments(Context& ctx, const ElfFile& elf, ByteView image, const std::string& member) {
  for (const auto& seg : elf.segments) {
    if (seg.type != kPtLoad || !image.contains(seg.offset, seg.filesz)) continue;
    scan_embedded(ctx, image.sub(seg.offset, seg.filesz, "ELF segment"), "(segment)", member);
  }
}

void inspect_elf(Context& ctx, ByteView image, const std::string& member) {
  ElfFile elf = parse_elf(image);
  if (elf.elf_class != 2 || elf.data != 1) {
    ctx.result.warnings.push_back(fmt::format("{}: only 64-bit little-endian ELF is scanned for fatbins",
                                              member.empty() ? ctx.result.path : member));
    return;
  }
  if (elf.machine == kEmCuda) {  // a bare cubin
    if (member.empty()) ctx.result.type = FileType::kCubin;
    FatbinBlob blob;
    blob.member = member;
    blob.offset = image.base();
    blob.size = image.size();
    blob.entry_count = 1;
    FatbinEntry e;
    e.kind = EntryKind::kSass;
    e.raw_kind = 2;
    e.offset = image.base();
    e.payload_size = image.size();
    e.cubin = parse_cubin_header(image);
    e.arch = GpuArch::from_number(static_cast<std::uint32_t>(e.cubin ? e.cubin->sm : 0),
                                  e.cubin && e.cubin->arch_specific ? ArchVariant::kA : ArchVariant::kNone);
    e.blob = ctx.result.blobs.size();
    ctx.result.blobs.push_back(blob);
    ctx.result.entries.push_back(e);
    return;
  }
  if (member.empty()) {
    ctx.result.elf_type = elf.type;
    DynamicInfo dyn = read_dynamic(elf, image);
    ctx.result.needed = std::move(dyn.needed);
    ctx.result.soname = std::move(dyn.soname);
    ctx.result.rpath = std::move(dyn.rpath);
    ctx.result.runpath = std::move(dyn.runpath);
  }
  std::size_t first_blob = ctx.result.blobs.size();
  if (elf.sections.empty()) {
    scan_segments(ctx, elf, image, member);
    return;
  }
  for (const auto& s : elf.sections) {
    if (!is_fatbin_section(s)) continue;
    walk_region(ctx, image.sub(s.offset, s.size, fmt::format("{} section", s.name)), s.name, member);
  }
  mark_device_link_blobs(ctx, elf, image, first_blob);
  for (const auto& s : elf.sections) {
    if (may_embed_fatbins(s) && image.contains(s.offset, s.size))
      scan_embedded(ctx, image.sub(s.offset, s.size, "section"), s.name, member);
  }
}

void inspect_image(Context& ctx, ByteView image, const std::string& member) {
  if (looks_like_elf(image)) {
    inspect_elf(ctx, image, member);
  } else if (image.contains(0, 4) && image.u32(0, "fatbin magic") == kFatbinMagic) {
    if (member.empty()) ctx.result.type = FileType::kFatbin;
    walk_region(ctx, image, "", member);
  }
}

// Reads what the fatbin headers leave out: the cubin's ELF header (free when
// the cubin is stored uncompressed) and, when asked, compressed heads.
void read_payload_heads(Context& ctx) {
  for (auto& e : ctx.result.entries) {
    if (e.cubin || (e.compression != Compression::kNone && !ctx.options.read_payload_heads)) continue;
    if (e.kind == EntryKind::kSass) {
      std::string head = read_entry_head(ctx.file, e, kElfHeadBytes);
      e.cubin = parse_cubin_header(ByteView(head));
      if (!e.cubin) {
        ctx.result.warnings.push_back(
            fmt::format("SASS entry at {} does not hold a CUDA ELF", hex(e.offset)));
      } else if (e.cubin->sm != 0 && e.cubin->sm != e.arch.number()) {
        ctx.result.warnings.push_back(
            fmt::format("SASS entry at {} is labelled sm_{} but its cubin says sm_{}", hex(e.offset),
                        e.arch.number(), e.cubin->sm));
      }
    } else if (e.kind == EntryKind::kPtx && ctx.options.read_payload_heads) {
      PtxHead head = parse_ptx_head(read_entry_head(ctx.file, e, kPtxHeadBytes));
      e.ptx_text_version = head.version;
      e.ptx_text_target = head.target;
    }
  }
}

InspectResult inspect_bytes_impl(ByteView bytes, const std::string& name, const InspectOptions& options,
                                 const MappedFile* mapping) {
  InspectResult result;
  result.path = name;
  result.file_size = bytes.size();
  Context ctx{bytes, options, mapping, result};
  try {
    if (looks_like_elf(bytes)) {
      result.type = FileType::kElf;
    } else if (looks_like_archive(bytes)) {
      result.type = FileType::kArchive;
    } else if (bytes.contains(0, 4) && bytes.u32(0, "fatbin magic") == kFatbinMagic) {
      result.type = FileType::kFatbin;
    } else {
      return result;
    }
    if (result.type == FileType::kArchive) {
      for (const auto& m : list_archive_members(bytes)) {
        ByteView image = bytes.sub(m.offset, m.size, "archive member");
        if (!looks_like_elf(image)) continue;
        result.members.push_back(m.name);
        inspect_image(ctx, image, m.name);
      }
    } else {
      inspect_image(ctx, bytes, "");
    }
    read_payload_heads(ctx);
  } catch (const FormatError& e) {
    result.error = fmt::format("{}: {}", name, e.what());
  }
  return result;
}

}  // namespace

InspectResult inspect_bytes(ByteView bytes, const std::string& name, const InspectOptions& options) {
  return inspect_bytes_impl(bytes, name, options, nullptr);
}

InspectResult inspect_file(const std::string& path, const InspectOptions& options) {
  try {
    MappedFile file(path);
    return inspect_bytes_impl(file.view(), path, options, &file);
  } catch (const InputError& e) {
    InspectResult r;
    r.path = path;
    r.error = e.what();
    return r;
  }
}

std::string file_type_name(const InspectResult& result) {
  switch (result.type) {
    case FileType::kNotBinary:
      return "not a CUDA binary";
    case FileType::kCubin:
      return "cubin";
    case FileType::kFatbin:
      return "fatbin";
    case FileType::kArchive:
      return "archive";
    case FileType::kElf:
      break;
  }
  switch (result.elf_type) {
    case 1:
      return "relocatable object";
    case 2:
      return "executable";
    case 3:
      return "shared library";
    default:
      return "ELF file";
  }
}

}  // namespace cudiag::inspect
