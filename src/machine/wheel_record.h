#pragma once
// Which installed wheel put a library file on disk, read from the wheel's own
// install record (PEP 376/PEP 627 `*.dist-info/RECORD`: one line per file
// with its path, hash and size). NVIDIA ships every CUDA library as a wheel
// (nvidia-cublas, nvidia-cudnn-cu13, ...), and the wheel's version is the
// library's full version — cuBLAS 13.1.0 is `nvidia_cublas-13.1.0.3`.
// Reading it costs a directory listing and a few kilobytes; asking the
// library itself costs loading it (0.1–0.4 s of CPU for cuBLAS or cuFFT).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/fsroot.h"

namespace cudiag::machine {

struct WheelOwner {
  std::string distribution;  // as the dist-info directory names it: "nvidia_cublas"
  std::string version;       // "13.1.0.3"
  std::string record_path;   // machine path of the RECORD file
  // How the RECORD line matched the file: "path and size" (the wheel's own
  // layout, site-packages/nvidia/cublas/lib/...), or "name and size" (the files
  // were copied out of the wheel, e.g. into a toolkit's lib64).
  std::string matched_by;
};

// The install records near a set of libraries, each directory's read once
// (the libraries of one toolkit or one site-packages share them).
class WheelRecordIndex {
 public:
  explicit WheelRecordIndex(const FsRoot& root) : root_(root) {}

  // The wheel whose RECORD lists `library` (a machine path, symlinks already
  // followed) with the file's exact size. Looks in the library's directory and
  // up to three levels above it, in each for `*.dist-info` directories and for
  // a `dist-info/` folder holding them; only distributions named `nvidia*` are
  // read. nullopt when none lists it, or when two list it with different versions.
  std::optional<WheelOwner> owner_of(const std::string& library) const;

 private:
  struct Entry {
    std::string path;  // as RECORD writes it, relative to the directory holding the dist-info
    std::size_t size = 0;
  };
  struct Record {
    std::string base;  // the directory RECORD's paths are relative to
    WheelOwner owner;
    std::multimap<std::string, Entry> by_name;  // file name -> entries
  };
  const std::vector<Record>& records_in(const std::string& dir) const;

  const FsRoot& root_;
  mutable std::map<std::string, std::vector<Record>> by_dir_;
};

// The first `components` dot-separated numbers of a version ("13.1.0.3", 3 ->
// "13.1.0"); "" when it has fewer numeric components than that.
std::string leading_components(const std::string& version, int components);

}  // namespace cudiag::machine
