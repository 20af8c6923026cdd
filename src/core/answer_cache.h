#pragma once
// Answers of library-version calls, remembered per file identity.
//
// Asking cuBLAS or cuSOLVER for its version means loading hundreds of MB of
// library in a child (0.1-0.4 s of CPU each); the answer can only change when
// the file does. So a successful answer is kept in a per-user cache file,
// keyed by the library's path and identity (device, inode, size, mtime and
// ctime in ns: replacing or rewriting the file changes at least one), and by
// cudiag's own build (a newer cudiag may decode answers differently). A
// missing, unreadable or malformed cache is simply empty: it is never input.
// The file is written atomically, only when something new was learned, and a
// failure to write it is recorded, never fatal.
#include <cstddef>
#include <optional>
#include <string>

#include "core/json.h"

namespace cudiag {

class AnswerCache {
 public:
  // The cache directory cudiag uses unless told otherwise: $CUDIAG_CACHE_DIR
  // (empty: no cache), $XDG_CACHE_HOME/cudiag, $HOME/.cache/cudiag; "" when
  // none can be named.
  static std::string default_dir();

  // `dir` empty: a cache that remembers nothing (--no-cache).
  explicit AnswerCache(std::string dir);

  bool enabled() const { return !dir_.empty(); }
  // "dev:ino:size:mtime_ns:ctime_ns" of the file at `host_path` (symlinks
  // followed), or nullopt when it cannot be stat'ed.
  static std::optional<std::string> file_identity(const std::string& host_path);

  // The remembered answer of `what` ("library cublas") for the file at
  // `host_path` as it is now, or nullopt.
  std::optional<Json> find(const std::string& what, const std::string& host_path);
  void remember(const std::string& what, const std::string& host_path, const Json& answer);
  // Writes the file when something was remembered.
  void save();

  // {"path", "hits", "misses", "error"?} for the report's timings.
  Json status() const;

 private:
  std::string key(const std::string& what, const std::string& host_path) const;
  void load();

  std::string dir_;
  std::string path_;
  Json entries_ = Json::object();
  bool loaded_ = false;
  bool dirty_ = false;
  std::size_t hits_ = 0;
  std::size_t misses_ = 0;
  std::string error_;
};

}  // namespace cudiag
