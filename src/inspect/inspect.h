#pragma once
// cudiag's static CUDA binary inspector: which device code a file carries.
// Bytes in, entries out: ELF executables, shared libraries and Python
// extension modules, relocatable objects and `ar` archives of them, bare
// .cubin and .fatbin files. The file is mapped read-only and only headers are
// read; it is never executed or dlopened.
//
// Example:
//   auto r = inspect::inspect_file("/usr/local/cuda/lib64/libcublas.so.13");
//   if (!r.error.empty()) std::cerr << r.error << "\n";   // "<path>: truncated ... at offset 0x..."
//   for (const auto& e : r.entries) std::cout << entry_arch_name(e) << "\n";   // sm_90a, compute_120, ...
//   auto v = inspect::file_verdict(r, *inspect::parse_gpu_arch("sm_120"), inspect::PtxIsa{8, 8});
#include <cstdint>
#include <string>
#include <vector>

#include "inspect/byte_view.h"
#include "inspect/fatbin.h"

namespace cudiag::inspect {

enum class FileType {
  kNotBinary,  // neither ELF, ar archive nor fatbin: skipped in directory scans
  kElf,        // host ELF (executable, shared library, object)
  kCubin,      // a bare CUDA ELF (e_machine 190)
  kFatbin,     // a bare fatbin (`nvcc -fatbin`, nvfatbin)
  kArchive,    // `ar` archive of objects (static libraries)
};

struct InspectOptions {
  // Decompress the start of every compressed entry to read the cubin's own
  // ELF header and the PTX `.version`/`.target` lines. Off by default: the
  // fatbin headers already say arch, kind and ISA, and decoding costs a zstd
  // block per entry.
  bool read_payload_heads = false;
};

struct InspectResult {
  std::string path;
  FileType type = FileType::kNotBinary;
  std::uint16_t elf_type = 0;  // 1 REL, 2 EXEC, 3 DYN (host ELF only)
  std::uint64_t file_size = 0;
  std::vector<FatbinBlob> blobs;
  std::vector<FatbinEntry> entries;  // in file order, as cuobjdump lists them
  std::vector<std::string> needed;   // DT_NEEDED
  std::string soname;
  std::vector<std::string> rpath;
  std::vector<std::string> runpath;
  std::vector<std::string> members;  // archives: the ELF members, in order
  std::vector<std::string> warnings;
  // "<path>: <what was wrong> at offset 0x1234", empty when the file parsed.
  // Entries found before the problem are kept.
  std::string error;

  bool ok() const { return error.empty(); }
  bool has_device_code() const { return !entries.empty(); }
};

// Inspects bytes already in memory (a wheel member, a fuzz input). `name`
// prefixes every message. Never throws for malformed input.
InspectResult inspect_bytes(ByteView bytes, const std::string& name, const InspectOptions& options = {});

// Maps `path` and inspects it. A file that cannot be opened is reported in
// `error` ("<path>: No such file or directory"), not thrown.
InspectResult inspect_file(const std::string& path, const InspectOptions& options = {});

std::string file_type_name(const InspectResult& result);  // "shared library", "executable", "cubin", ...

}  // namespace cudiag::inspect
