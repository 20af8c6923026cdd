#include "core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "core/errors.h"

namespace cudiag {

void write_file_atomically(const std::string& path, std::string_view content) {
  // A dot-file in the target's directory: rename(2) stays on one filesystem, and
  // directory watchers skip it — NFD ignores dot-files in features.d, and
  // node_exporter's textfile collector reads only *.prom.
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string tmp = fmt::format("{}.{}.tmp.{}", dir, path.substr(dir.size()), ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  std::size_t done = 0;
  while (done < content.size()) {
    auto n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw InputError(fmt::format("{}: cannot write: {}", path, std::strerror(err)));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw InputError(fmt::format("{}: cannot write: {}", path, std::strerror(err)));
  }
}

}  // namespace cudiag
