#pragma once
// Which copy of each CUDA library a framework's shared objects would load,
// worked out the way glibc's dynamic loader searches (ld.so(8)) without
// loading anything: for a DT_NEEDED name without a slash, an object that has
// no DT_RUNPATH searches its own DT_RPATH and then its loaders' DT_RPATHs;
// then LD_LIBRARY_PATH; then the object's DT_RUNPATH (which applies to its own
// direct dependencies only); then /etc/ld.so.cache; then the default
// directories. A soname already loaded in the process is reused whatever the
// path. $ORIGIN expands to the directory of the object that asks.
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "core/fsroot.h"
#include "machine/library_search.h"

namespace cudiag::probes {

// The dynamic section of one ELF file, read from its headers only.
struct DynamicObject {
  std::string path;  // the machine path it was opened by (what $ORIGIN is taken from)
  std::string soname;
  std::vector<std::string> needed;
  std::vector<std::string> rpath;
  std::vector<std::string> runpath;
  std::string error;  // unreadable or not ELF; the other fields are then empty
};

DynamicObject read_dynamic_object(const FsRoot& root, const std::string& path);

struct ResolvedLibrary {
  std::string soname;     // "libcudnn.so.9"
  std::string library;    // "cudnn", "cublas", "nvjitlink", ... (see cuda_library_of)
  std::string needed_by;  // the object whose DT_NEEDED (or dlopen) asks for it
  std::string how;        // "DT_NEEDED" or "dlopen"
  std::string path;       // where it would be loaded from; "" when the loader finds nothing
  std::string real_path;  // path with symlinks followed
  std::string via;        // "RPATH $ORIGIN/../../nvidia/cudnn/lib", "LD_LIBRARY_PATH", "RUNPATH ...",
                          // "ld.so.cache", "default path"
};

// "libcudnn_ops.so.9" -> "cudnn", "libcublasLt.so.12" -> "cublas", "libnvJitLink.so.12" -> "nvjitlink";
// "" for a library that is not part of CUDA's user-space stack (libc, libstdc++, ...).
std::string cuda_library_of(const std::string& soname);

class LoaderEmulation {
 public:
  LoaderEmulation(const FsRoot& root, const machine::LibrarySearch& search,
                  std::vector<std::string> ld_library_path);

  // Loads `object` as Python's dlopen of an extension would, then resolves
  // its CUDA dependencies and theirs (`depth` levels), in DT_NEEDED order.
  void load(const DynamicObject& object, int depth = 3);
  // A library the object opens itself at run time (TensorFlow's dso_loader,
  // torch's lazy libnvrtc): dlopen uses the caller's RPATH/RUNPATH.
  void dlopen_from(const DynamicObject& caller, const std::string& soname, int depth = 2);

  const std::vector<ResolvedLibrary>& resolved() const { return resolved_; }

 private:
  void resolve_needed(const DynamicObject& object, std::vector<const DynamicObject*>& chain, int depth);
  void resolve_one(const DynamicObject& requester, const std::vector<const DynamicObject*>& chain,
                   const std::string& soname, const std::string& how, int depth);
  // `listed`: look the soname up in each directory's listing (RPATH and
  // RUNPATH: small wheel directories) rather than stat it (system directories).
  std::string search_dirs(const std::vector<std::string>& dirs, const DynamicObject& owner,
                          const std::string& soname, bool listed) const;

  const FsRoot& root_;
  const machine::LibrarySearch& search_;
  std::vector<std::string> ld_library_path_;
  std::vector<ResolvedLibrary> resolved_;
  std::vector<std::string> loaded_sonames_;
  std::deque<DynamicObject> objects_;  // every object read; a deque so chains can point into it
  // Directory (normalized machine path) -> its sorted entries, listed once.
  mutable std::map<std::string, std::vector<std::string>> listings_;
};

}  // namespace cudiag::probes
