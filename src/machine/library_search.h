#pragma once
// Finds every copy of a CUDA library the machine offers, the way the dynamic
// loader and the usual install layouts would: LD_LIBRARY_PATH, the loader
// cache, the default directories, CUDA_HOME/CUDA_PATH, /usr/local/cuda*,
// pip wheels (site-packages/nvidia/*/lib) and conda environments. Each
// instance records every place it was found through, and the loader's own
// choice is emulated so a report can say which copy a process would load.
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/fsroot.h"
#include "machine/environment.h"
#include "machine/ld_cache.h"

namespace cudiag::machine {

struct SearchDir {
  std::string path;
  std::string
      via;  // "LD_LIBRARY_PATH", "ld.so.cache", "toolkit /usr/local/cuda-13.0", "wheel site-packages ..."
};

struct LibraryInstance {
  std::string path;       // the name it was found under, e.g. /usr/lib/x86_64-linux-gnu/libcuda.so.1
  std::string real_path;  // after following symlinks inside the root
  std::vector<std::string> found_via;
  std::string file_version;  // from the real file's name: libcuda.so.535.104.05 -> "535.104.05"
  std::string error;         // e.g. a symlink loop; the instance is still listed
  bool is_stub = false;      // a toolkit stubs/ directory: links, but cannot run anything
};

struct PythonSitePackages {
  std::string path;
  std::string via;  // "python3 on PATH (/usr/bin/python3)", "VIRTUAL_ENV", ...
};

class LibrarySearch {
 public:
  LibrarySearch(const FsRoot& root, const Environment& env);

  // Every instance of a library whose file names start with `prefix`
  // ("libcudart.so"), deduplicated by real path, in loader order first.
  std::vector<LibraryInstance> find_all(const std::string& prefix) const;
  // The path the loader would open for `soname` from a program without
  // RPATH, or nullopt. Follows glibc's order: LD_LIBRARY_PATH, cache, defaults.
  std::optional<std::string> loader_pick(const std::string& soname) const;

  const LdCache& ld_cache() const { return cache_; }
  const std::string& ld_cache_error() const { return cache_error_; }
  const std::vector<SearchDir>& dirs() const {
    ensure_dirs();
    return dirs_;
  }
  const std::vector<PythonSitePackages>& site_packages() const {
    ensure_dirs();
    return site_packages_;
  }
  const std::vector<std::string>& toolkit_roots() const {
    ensure_dirs();
    return toolkit_roots_;
  }

 private:
  void ensure_dirs() const;
  void find_dirs();
  void add_dir(const std::string& path, const std::string& via);
  void add_toolkit(const std::string& root, const std::string& via);
  void find_site_packages();
  // A directory's entries, listed once per search: every library kind scans
  // the same directories, and listing them again for each cost more than
  // the rest of the report's file reading together.
  const std::vector<std::string>& listing(const std::string& dir) const;

  const FsRoot& root_;
  const Environment& env_;
  LdCache cache_;
  std::string cache_error_;
  bool dirs_found_ = false;
  std::vector<SearchDir> dirs_;
  // "path\0via" of every dir in dirs_: add_dir is called once per distinct
  // ld.so.cache directory (100k in a hostile cache), so the check is O(1).
  std::unordered_set<std::string> dir_keys_;
  std::vector<PythonSitePackages> site_packages_;
  std::vector<std::string> toolkit_roots_;
  std::vector<std::string> ld_library_path_;
  mutable std::map<std::string, std::vector<std::string>> listings_;
};

// "libcudnn.so.9.1.0" after the prefix "libcudnn.so" -> "9.1.0"; "" when none.
std::string version_from_file_name(const std::string& file_name, const std::string& prefix);

}  // namespace cudiag::machine
