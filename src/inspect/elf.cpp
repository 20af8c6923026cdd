#include "inspect/elf.h"

#include <fmt/format.h>

#include <optional>

namespace cudiag::inspect {

namespace {

// ELF64 header:
//   +0x00 e_ident[16]: "\x7fELF", class, data, version, osabi, abiversion
//   +0x10 u16 e_type  +0x12 u16 e_machine  +0x14 u32 e_version
//   +0x18 u64 e_entry +0x20 u64 e_phoff    +0x28 u64 e_shoff  +0x30 u32 e_flags
//   +0x34 u16 e_ehsize +0x36 u16 e_phentsize +0x38 u16 e_phnum
//   +0x3a u16 e_shentsize +0x3c u16 e_shnum +0x3e u16 e_shstrndx
// Section header (64 bytes): +0 u32 name, +4 u32 type, +8 u64 flags,
//   +0x10 u64 addr, +0x18 u64 offset, +0x20 u64 size, +0x28 u32 link, ...
// Program header (56 bytes): +0 u32 type, +4 u32 flags, +8 u64 offset,
//   +0x10 u64 vaddr, +0x18 u64 paddr, +0x20 u64 filesz, ...
constexpr std::uint64_t kEhdrSize = 64;
constexpr std::uint64_t kShdrSize = 64;
constexpr std::uint64_t kPhdrSize = 56;
// Section names are short; a longer "name" means a corrupt string table.
constexpr std::uint64_t kMaxSectionName = 256;
constexpr std::uint16_t kShnXindex = 0xffff;

// Dynamic tags (entries are {i64 tag, u64 value}, 16 bytes, ended by DT_NULL).
constexpr std::uint64_t kDtNull = 0, kDtNeeded = 1, kDtStrtab = 5, kDtStrsz = 10, kDtSoname = 14,
                        kDtRpath = 15, kDtRunpath = 29;
// Strings from the dynamic string table are paths and library names.
constexpr std::uint64_t kMaxDynString = 16384;
constexpr std::size_t kMaxDynamicEntries = 1 << 16;

std::vector<std::string> split_path_list(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    auto colon = s.find(':');
    out.emplace_back(s.substr(0, colon));
    if (colon == std::string_view::npos) break;
    s.remove_prefix(colon + 1);
  }
  return out;
}

}  // namespace

const ElfSection* ElfFile::find_section(std::string_view name) const {
  for (const auto& s : sections)
    if (s.name == name) return &s;
  return nullptr;
}

std::optional<std::uint64_t> ElfFile::offset_of_vaddr(std::uint64_t vaddr) const {
  for (const auto& seg : segments) {
    if (seg.type != kPtLoad) continue;
    if (vaddr >= seg.vaddr && vaddr - seg.vaddr < seg.filesz) return seg.offset + (vaddr - seg.vaddr);
  }
  return std::nullopt;
}

bool looks_like_elf(ByteView file) {
  return file.contains(0, 4) && file.bytes(0, 4, "ELF magic") ==
                                    "\x7f"
                                    "ELF";
}

ElfFile parse_elf(ByteView file) {
  ElfFile elf;
  file.require(0, 16, "ELF identification");
  elf.elf_class = file.u8(4, "ELF class");
  elf.data = file.u8(5, "ELF data encoding");
  if (elf.elf_class != 2 || elf.data != 1) return elf;
  file.require(0, kEhdrSize, "ELF header");
  elf.os_abi = file.u8(7, "ELF header");
  elf.abi_version = file.u8(8, "ELF header");
  elf.type = file.u16(0x10, "ELF header");
  elf.machine = file.u16(0x12, "ELF header");
  elf.flags = file.u32(0x30, "ELF header");
  std::uint64_t phoff = file.u64(0x20, "ELF header");
  std::uint64_t shoff = file.u64(0x28, "ELF header");
  std::uint16_t phentsize = file.u16(0x36, "ELF header");
  std::uint16_t phnum = file.u16(0x38, "ELF header");
  std::uint16_t shentsize = file.u16(0x3a, "ELF header");
  std::uint64_t shnum = file.u16(0x3c, "ELF header");
  std::uint32_t shstrndx = file.u16(0x3e, "ELF header");

  if (phnum != 0) {
    if (phentsize < kPhdrSize)
      throw FormatError(fmt::format("bad ELF program header size {}", phentsize), file.base() + 0x36);
    file.require(phoff, std::uint64_t{phnum} * phentsize, "ELF program header table");
    for (std::uint64_t i = 0; i < phnum; ++i) {
      ByteView ph = file.sub(phoff + i * phentsize, kPhdrSize, "ELF program header");
      elf.segments.push_back({ph.u32(0, "ELF program header"), ph.u64(8, "ELF program header"),
                              ph.u64(0x10, "ELF program header"), ph.u64(0x20, "ELF program header")});
    }
  }

  if (shoff == 0) return elf;  // no section table (stripped); callers fall back to segments
  if (shentsize < kShdrSize)
    throw FormatError(fmt::format("bad ELF section header size {}", shentsize), file.base() + 0x3a);
  // More than 0xff00 sections: the real count and string table index live
  // in section header 0 (gABI "Extended section numbering").
  if (shnum == 0 || shstrndx == kShnXindex) {
    ByteView sh0 = file.sub(shoff, kShdrSize, "ELF section header 0");
    if (shnum == 0) shnum = sh0.u64(0x20, "ELF section header 0");
    if (shstrndx == kShnXindex) shstrndx = sh0.u32(0x28, "ELF section header 0");
  }
  // The whole table must fit in the file, which also bounds shnum.
  if (shnum > file.size() / shentsize)
    throw FormatError(fmt::format("ELF section count {} cannot fit in the file", shnum), file.base() + 0x3c);
  file.require(shoff, shnum * shentsize, "ELF section header table");
  elf.sections.reserve(static_cast<std::size_t>(shnum));
  std::vector<std::uint32_t> name_offsets;
  for (std::uint64_t i = 0; i < shnum; ++i) {
    ByteView sh = file.sub(shoff + i * shentsize, kShdrSize, "ELF section header");
    ElfSection s;
    name_offsets.push_back(sh.u32(0, "ELF section header"));
    s.type = sh.u32(4, "ELF section header");
    s.addr = sh.u64(0x10, "ELF section header");
    s.offset = sh.u64(0x18, "ELF section header");
    s.size = sh.u64(0x20, "ELF section header");
    s.link = sh.u32(0x28, "ELF section header");
    elf.sections.push_back(s);
  }
  if (shstrndx == 0) return elf;  // SHN_UNDEF: sections without names
  if (shstrndx >= shnum)
    throw FormatError(fmt::format("ELF section name table index {} is past the {} sections", shstrndx, shnum),
                      file.base() + 0x3e);
  const ElfSection& strtab = elf.sections[shstrndx];
  ByteView names = file.sub(strtab.offset, strtab.size, "ELF section name table");
  for (std::size_t i = 0; i < elf.sections.size(); ++i) {
    if (name_offsets[i] >= names.size()) {
      throw FormatError(
          fmt::format("ELF section {} name offset {} is past its string table", i, name_offsets[i]),
          file.base() + shoff + i * shentsize);
    }
    elf.sections[i].name = std::string(names.c_string(name_offsets[i], kMaxSectionName, "ELF section name"));
  }
  return elf;
}

DynamicInfo read_dynamic(const ElfFile& elf, ByteView file) {
  DynamicInfo info;
  const ElfSegment* dyn = nullptr;
  for (const auto& seg : elf.segments)
    if (seg.type == kPtDynamic) dyn = &seg;
  if (!dyn) return info;
  ByteView table = file.sub(dyn->offset, dyn->filesz, "ELF dynamic section");

  struct Tag {
    std::uint64_t tag;
    std::uint64_t value;
  };
  std::vector<Tag> tags;
  std::uint64_t strtab_vaddr = 0, strsz = 0;
  bool have_strtab = false;
  for (std::uint64_t at = 0; at + 16 <= table.size() && tags.size() < kMaxDynamicEntries; at += 16) {
    Tag t{table.u64(at, "ELF dynamic entry"), table.u64(at + 8, "ELF dynamic entry")};
    if (t.tag == kDtNull) break;
    if (t.tag == kDtStrtab) {
      strtab_vaddr = t.value;
      have_strtab = true;
    } else if (t.tag == kDtStrsz) {
      strsz = t.value;
    }
    tags.push_back(t);
  }
  if (!have_strtab) return info;
  auto strtab_off = elf.offset_of_vaddr(strtab_vaddr);
  if (!strtab_off)
    throw FormatError("ELF dynamic string table is outside every loaded segment", file.base() + dyn->offset);
  // DT_STRSZ bounds the table; a missing or oversized one is cut at the file end.
  std::uint64_t avail = *strtab_off <= file.size() ? file.size() - *strtab_off : 0;
  ByteView strings =
      file.sub(*strtab_off, strsz != 0 && strsz < avail ? strsz : avail, "ELF dynamic string table");
  auto str = [&](std::uint64_t off) {
    if (off >= strings.size())
      throw FormatError(fmt::format("ELF dynamic string offset {} is past its table", off), strings.base());
    return std::string(strings.c_string(off, kMaxDynString, "ELF dynamic string"));
  };
  for (const auto& t : tags) {
    if (t.tag == kDtNeeded)
      info.needed.push_back(str(t.value));
    else if (t.tag == kDtSoname)
      info.soname = str(t.value);
    else if (t.tag == kDtRpath)
      info.rpath = split_path_list(str(t.value));
    else if (t.tag == kDtRunpath)
      info.runpath = split_path_list(str(t.value));
  }
  return info;
}

}  // namespace cudiag::inspect
