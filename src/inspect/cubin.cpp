#include "inspect/cubin.h"

namespace cudiag::inspect {

// ELF64 header fields used here:
//   +0x00 "\x7fELF"  +0x04 EI_CLASS (2)  +0x05 EI_DATA (1 = LE)  +0x07 EI_OSABI
//   +0x08 EI_ABIVERSION  +0x10 u16 e_type  +0x12 u16 e_machine  +0x30 u32 e_flags
std::optional<CubinHeader> parse_cubin_header(ByteView head) {
  if (!head.contains(0, 64)) return std::nullopt;
  if (head.bytes(0, 4, "ELF magic") !=
      "\x7f"
      "ELF")
    return std::nullopt;
  if (head.u8(4, "EI_CLASS") != 2 || head.u8(5, "EI_DATA") != 1) return std::nullopt;
  if (head.u16(0x12, "e_machine") != kEmCuda) return std::nullopt;
  CubinHeader h;
  h.os_abi = head.u8(7, "EI_OSABI");
  h.abi_version = head.u8(8, "EI_ABIVERSION");
  h.elf_type = head.u16(0x10, "e_type");
  h.e_flags = head.u32(0x30, "e_flags");
  if (h.abi_version == 7) {
    h.sm = static_cast<int>(h.e_flags & 0xff);
    h.virtual_sm = static_cast<int>((h.e_flags >> 16) & 0xff);
    h.arch_specific = (h.e_flags & 0x800) != 0;
  } else if (h.abi_version == 8) {
    h.sm = static_cast<int>((h.e_flags >> 8) & 0xff);
  }
  return h;
}

}  // namespace cudiag::inspect
