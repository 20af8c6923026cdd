#include "core/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/errors.h"

namespace cudiag {

namespace {

[[noreturn]] void fail(const std::string& path, int err) {
  throw InputError(fmt::format("{}: cannot write: {}", path, std::strerror(err)));
}

bool write_all(int fd, std::string_view content) {
  std::size_t done = 0;
  while (done < content.size()) {
    auto n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

mode_t current_umask() {
  mode_t m = ::umask(022);
  ::umask(m);
  return m;
}

void replace_regular(const std::string& shown, const std::string& target, std::string_view content,
                     const struct stat* existing) {
  auto slash = target.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : target.substr(0, slash));
  std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  std::string pattern = (dir == "/" ? "" : dir) + "/." + base + ".XXXXXX";
  std::vector<char> tmp(pattern.begin(), pattern.end());
  tmp.push_back('\0');
  int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) fail(shown, errno);
  mode_t mode = existing ? (existing->st_mode & 07777) : (0666 & ~current_umask());
  auto cleanup = [&](int err) {
    ::close(fd);
    ::unlink(tmp.data());
    fail(shown, err);
  };
  if (::fchmod(fd, mode) != 0) cleanup(errno);
  if (!write_all(fd, content)) cleanup(errno);
  if (::fsync(fd) != 0) cleanup(errno);
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.data());
    fail(shown, err);
  }
  if (std::rename(tmp.data(), target.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.data());
    fail(shown, err);
  }
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view content) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) fail(path, S_ISDIR(st.st_mode) ? EISDIR : EEXIST);
    replace_regular(path, path, content, &st);
    return;
  }
  if (errno != ENOENT) fail(path, errno);
  replace_regular(path, path, content, nullptr);
}

// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the descriptor this
// process already has, or -1. Written to as it is (a `>>` file keeps
// appending, a pipe stays a pipe) rather than reopened or replaced.
static int own_descriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (!path.starts_with(prefix) || path.size() == prefix.size() || path.size() > prefix.size() + 6)
      continue;
    int fd = 0;
    for (char c : path.substr(prefix.size())) {
      if (c < '0' || c > '9') return -1;
      fd = fd * 10 + (c - '0');
    }
    return ::fcntl(fd, F_GETFD) == -1 ? -1 : fd;
  }
  return -1;
}

void write_output_file(const std::string& path, std::string_view content) {
  if (int own = own_descriptor(path); own >= 0) {
    if (!write_all(own, content)) fail(path, errno);
    return;
  }
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) != 0) {
    if (errno != ENOENT) fail(path, errno);
    replace_regular(path, path, content, nullptr);
    return;
  }
  struct stat st {};
  bool target_exists = ::stat(path.c_str(), &st) == 0;
  if (S_ISLNK(lst.st_mode) && !target_exists) fail(path, ENOENT);  // a dangling link is not followed
  if (S_ISDIR(st.st_mode)) fail(path, EISDIR);
  if (S_ISREG(st.st_mode)) {
    if (!S_ISLNK(lst.st_mode)) {
      replace_regular(path, path, content, &st);
      return;
    }
    // A symlink to a regular file: the file it names is replaced, the link stays.
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) fail(path, errno);
    replace_regular(path, resolved, content, &st);
    return;
  }
  // A device, FIFO, socket or terminal: written through, never replaced.
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail(path, errno);
  if (!write_all(fd, content)) {
    int err = errno;
    ::close(fd);
    fail(path, err);
  }
  if (::close(fd) != 0) fail(path, errno);
}

}  // namespace cudiag
