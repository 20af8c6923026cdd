#pragma once
// NVIDIA fatbin containers: a run of blobs, each a 16-byte header followed by
// entries (SASS cubins, PTX text, LTO IR), each with a 64-byte header plus a
// tail. The layout is undocumented; shared/reference/fatbin-format.md
// sections 3-7 give it byte by byte with its sources, confirmed on CUDA 13.0
// nvcc output and against cuobjdump 13.x in tests/inspect.
//
// Walking reads only headers: payloads stay in the mapping untouched, so a
// 139 MB fatbin costs a few thousand small reads.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "inspect/byte_view.h"
#include "inspect/cubin.h"
#include "inspect/gpu_arch.h"

namespace cudiag::inspect {

enum class EntryKind { kSass, kPtx, kLtoIr, kUnknown };
enum class Compression { kNone, kLz4, kZstd };

// Blob header, 16 bytes, little-endian:
//   +0x00 u32 magic 0xBA55ED50   +0x04 u16 version (1)   +0x06 u16 header_size (16)
//   +0x08 u64 fat_size: bytes of entries after the header (may be 0)
inline constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;
// The pre-CUDA-4 pointer-based format; detected and reported, not parsed.
inline constexpr std::uint32_t kLegacyFatbinMagic = 0x1EE55A01;

// Entry flag bits (u64 at +0x28), see fatbin-format.md section 5.
inline constexpr std::uint64_t kFlagDebug = 0x2;
inline constexpr std::uint64_t kFlagLz4 = 0x2000;
inline constexpr std::uint64_t kFlagZstd = 0x8000;
inline constexpr std::uint64_t kFlagVariantA = 0x100000;
inline constexpr std::uint64_t kFlagVariantF = 0x200000;

struct FatbinEntry {
  EntryKind kind = EntryKind::kUnknown;
  std::uint16_t raw_kind = 0;       // 1 PTX, 2 ELF, 8 LTO IR, others unknown
  GpuArch arch;                     // real arch for SASS, virtual arch for PTX/LTO
  std::uint16_t version_major = 0;  // PTX: the PTX ISA version; ELF: cubin code version (1.7 / 1.8)
  std::uint16_t version_minor = 0;
  Compression compression = Compression::kNone;
  std::uint64_t flags = 0;
  std::uint64_t offset = 0;  // file offset of the entry header
  std::uint32_t header_size = 0;
  std::uint64_t payload_size = 0;     // bytes after the header, padded to 8
  std::uint32_t compressed_size = 0;  // 0 when stored as-is
  std::uint64_t uncompressed_size = 0;
  std::string identifier;  // source name, present with -G / -lineinfo
  std::size_t blob = 0;    // index into InspectResult::blobs
  // Filled only when the content was read: always for uncompressed cubins
  // (the ELF header is in the mapping), for compressed ones with --deep.
  std::optional<CubinHeader> cubin;
  // PTX text head (".version", ".target"), read with --deep.
  std::optional<PtxIsa> ptx_text_version;
  std::string ptx_text_target;

  // The PTX ISA an entry needs: the header's version, or the text's when the
  // header says 0.0 (nvfatbin strips `.version` but fills the header).
  std::optional<PtxIsa> ptx_isa() const;
  // The size of the content once decompressed.
  std::uint64_t content_size() const;
};

struct FatbinBlob {
  std::string section;       // ".nv_fatbin", "__nv_relfatbin", "" for a bare .fatbin file
  std::string member;        // archive member name, "" outside archives
  std::uint64_t offset = 0;  // file offset of the blob header
  std::uint64_t size = 0;    // header + entries
  std::size_t entry_count = 0;
  // Referenced by a version-2 (FATBINC_LINK_VERSION) wrapper: the device-link
  // step's output. Without -rdc it holds no kernels (fatbin-format.md section 1).
  bool device_link = false;
  // Found by scanning a data section (.rodata, .ldata, ...) rather than in a
  // fatbin section: libraries such as libcufft load these modules themselves.
  // cuobjdump does not list them.
  bool embedded = false;
};

// Walks every blob in `region` (a fatbin section, or a whole .fatbin file)
// and appends what it finds. Zero padding between blobs is skipped. Throws
// FormatError at the first header that is malformed or does not fit; the
// blobs and entries found before it stay appended.
// `on_blob` (optional) is called after each blob with the region offset
// walked so far, so the caller can release the pages behind it.
void walk_fatbin_region(ByteView region, const std::string& section, const std::string& member,
                        std::vector<FatbinBlob>& blobs, std::vector<FatbinEntry>& entries,
                        std::vector<std::string>& warnings,
                        const std::function<void(std::uint64_t)>& on_blob = nullptr);

std::string kind_name(EntryKind kind);                  // "sass", "ptx", "lto_ir", "unknown"
std::string compression_name(Compression compression);  // "none", "lz4", "zstd"
// The arch as it is usually written: "sm_90a" for SASS, "compute_90" for PTX, "lto_90" for LTO IR.
std::string entry_arch_name(const FatbinEntry& entry);

}  // namespace cudiag::inspect
