#pragma once
// Just enough of a host ELF file to find its fatbins and what it loads: the
// section table (by name) and the dynamic section (DT_NEEDED, DT_SONAME,
// DT_RPATH, DT_RUNPATH). Own definitions rather than <elf.h>, so the layouts
// are written down here and the host's headers do not matter.
// Source: System V gABI, "ELF Header", "Sections", "Dynamic Section".
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inspect/byte_view.h"

namespace cudiag::inspect {

struct ElfSection {
  std::string name;
  std::uint32_t type = 0;
  std::uint64_t addr = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint32_t link = 0;
};

struct ElfSegment {
  std::uint32_t type = 0;  // 1 PT_LOAD, 2 PT_DYNAMIC
  std::uint64_t offset = 0;
  std::uint64_t vaddr = 0;
  std::uint64_t filesz = 0;
};

struct ElfFile {
  std::uint8_t elf_class = 0;  // 1 = 32-bit, 2 = 64-bit
  std::uint8_t data = 0;       // 1 = little-endian
  std::uint16_t type = 0;      // 1 REL, 2 EXEC, 3 DYN
  std::uint16_t machine = 0;
  std::uint8_t os_abi = 0;
  std::uint8_t abi_version = 0;
  std::uint32_t flags = 0;
  std::vector<ElfSection> sections;
  std::vector<ElfSegment> segments;

  const ElfSection* find_section(std::string_view name) const;
  // The file offset holding virtual address `vaddr` (through PT_LOAD), or nullopt.
  std::optional<std::uint64_t> offset_of_vaddr(std::uint64_t vaddr) const;
};

struct DynamicInfo {
  std::vector<std::string> needed;
  std::string soname;
  std::vector<std::string> rpath;    // DT_RPATH, split at ':'
  std::vector<std::string> runpath;  // DT_RUNPATH, split at ':'
};

inline constexpr std::uint32_t kShtNobits = 8;
inline constexpr std::uint32_t kPtLoad = 1;
inline constexpr std::uint32_t kPtDynamic = 2;

// True when `file` starts with the ELF magic.
bool looks_like_elf(ByteView file);

// Parses the ELF header, program headers and section headers of a 64-bit
// little-endian ELF. Throws FormatError for a header, table or name that
// does not fit in the file. 32-bit or big-endian files return only
// elf_class/data filled, with no sections.
ElfFile parse_elf(ByteView file);

// Reads PT_DYNAMIC through the program headers (works on stripped files and
// needs no section table). Empty for objects without one.
DynamicInfo read_dynamic(const ElfFile& elf, ByteView file);

}  // namespace cudiag::inspect
