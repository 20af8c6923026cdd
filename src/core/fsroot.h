#pragma once
// Every file cudiag reads about the machine goes through one FsRoot. By
// default it is "/"; `--root DIR` points it at a captured machine (a fixture
// tree with its own /proc, /sys, /dev, /etc/ld.so.cache and library dirs), the
// way util-linux's `lscpu --sysroot` and hwloc's HWLOC_FSROOT do.
//
// Paths given to and returned by FsRoot are the machine's paths ("/proc/..."),
// never host paths; host_path() maps one to where it really is.
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudiag {

struct ReadResult {
  std::optional<std::string> data;
  std::string error;  // set when data is empty: "No such file or directory", "larger than 1 MiB", ...
  explicit operator bool() const { return data.has_value(); }
};

struct ResolveResult {
  std::optional<std::string> path;  // the machine path with every symlink followed
  std::string error;
  // On failure, a machine path that names the failing component under the
  // part already resolved (no symlink in it), so open() fails the same way
  // without the kernel following a link out of the root; empty when none
  // (a loop).
  std::string failed_at;
  explicit operator bool() const { return path.has_value(); }
};

class FsRoot {
 public:
  // Small files (/proc entries, os-release, version.json) are capped so a
  // huge or endless file where a small one is expected cannot stall cudiag.
  static constexpr std::size_t kSmallFileLimit = 1 << 20;

  explicit FsRoot(std::string root = "/");

  const std::string& root() const { return root_; }
  bool is_real_root() const { return root_ == "/"; }
  std::string host_path(std::string_view machine_path) const;
  // host_path() of the path with its symlinks followed inside the root: what
  // to hand to open(), dlopen() or mmap(), which would otherwise follow an
  // absolute symlink out of a fixture tree. Under --root every path resolves
  // inside the root or fails: a path that cannot be resolved there (a link
  // whose target is missing, a loop) maps to one that does not exist, never
  // to the unresolved name the kernel would follow out.
  std::string host_path_followed(std::string_view machine_path) const;

  ReadResult read_file(std::string_view path, std::size_t max_bytes = kSmallFileLimit) const;
  // Names in a directory (no "." or ".."), sorted; empty when it cannot be read.
  std::vector<std::string> list_dir(std::string_view path) const;
  bool exists(std::string_view path) const;  // follows symlinks
  bool is_dir(std::string_view path) const;
  bool is_regular_file(std::string_view path) const;
  bool is_symlink(std::string_view path) const;
  bool is_char_device(std::string_view path) const;
  std::optional<std::string> read_link(std::string_view path) const;
  // Follows symlinks component by component inside the root (absolute targets
  // are re-rooted), with a loop limit, so a fixture's /usr/lib/x -> /opt/y
  // stays inside the fixture.
  ResolveResult resolve(std::string_view path) const;
  // Whether the current user could open the file for reading and writing.
  bool can_read_write(std::string_view path) const;
  std::optional<std::size_t> file_size(std::string_view path) const;

 private:
  // Resolves `rest` (components, no symlinks followed yet) starting from the
  // already resolved directory `current`.
  ResolveResult resolve_from(std::string current, std::vector<std::string> pending,
                             std::string_view path) const;

  std::string root_;
  // Resolved directories, so the thousands of lookups under the same few
  // library directories cost one lstat per component, not one per lookup.
  // One report is a snapshot: a directory's links are not expected to change
  // while it is collected. Shared by copies; guarded for the inspector's threads.
  struct ResolveCache;
  std::shared_ptr<ResolveCache> cache_;
};

// "/a/b/../c" -> "/a/c"; always absolute, no trailing slash.
std::string normalize_path(std::string_view path);
std::string join_path(std::string_view dir, std::string_view name);
std::string dir_name(std::string_view path);
std::string base_name(std::string_view path);

}  // namespace cudiag
