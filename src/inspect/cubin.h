#pragma once
// The ELF header of a CUDA cubin (e_machine 190, EM_CUDA). Where the SM
// number sits in e_flags changed with CUDA 13 and is chosen by EI_ABIVERSION,
// never by EI_OSABI or by guessing plausible SM values:
//
//   ABI 7 ("V1", CUDA <= 12.x, EI_OSABI 0x33): e_flags bits 0-7 = SM,
//          bits 16-23 = virtual SM, 0x800 = sm_XXa
//   ABI 8 ("V2", CUDA 13,      EI_OSABI 0x41): e_flags bits 8-15 = SM;
//          the a/f variant is not recorded here (it is in the fatbin flags)
//
// Sources: LLVM PRs #75624, #149534, #159354 (getNVPTXCPUName); the table of
// e_flags observed on CUDA 13.0 in shared/reference/fatbin-format.md section 8.
#include <cstdint>
#include <optional>

#include "inspect/byte_view.h"

namespace cudiag::inspect {

inline constexpr std::uint16_t kEmCuda = 190;

struct CubinHeader {
  std::uint8_t os_abi = 0;
  std::uint8_t abi_version = 0;
  std::uint16_t elf_type = 0;  // 1 ET_REL (relocatable, -rdc), 2 ET_EXEC
  std::uint32_t e_flags = 0;
  int sm = 0;                  // decoded per abi_version; 0 if the ABI is unknown
  int virtual_sm = 0;          // ABI 7 only
  bool arch_specific = false;  // ABI 7 only: EF_CUDA_ACCELERATORS (sm_90a)
};

// Decodes the first 64 bytes of a cubin. Returns nullopt when the bytes are
// not a 64-bit little-endian ELF for EM_CUDA (too short counts as not).
std::optional<CubinHeader> parse_cubin_header(ByteView head);

}  // namespace cudiag::inspect
