#include "core/fsroot.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unordered_map>

namespace cudiag {

namespace {

std::vector<std::string> split_components(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    std::size_t j = i;
    while (j < path.size() && path[j] != '/') ++j;
    if (j > i) parts.emplace_back(path.substr(i, j - i));
    i = j;
  }
  return parts;
}

std::string human_size(std::size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} bytes", bytes);
}

}  // namespace

std::string normalize_path(std::string_view path) {
  std::vector<std::string> out;
  for (auto& part : split_components(path)) {
    if (part == ".") continue;
    if (part == "..") {
      if (!out.empty()) out.pop_back();
      continue;
    }
    out.push_back(std::move(part));
  }
  std::string result;
  for (const auto& part : out) result += "/" + part;
  return result.empty() ? "/" : result;
}

std::string join_path(std::string_view dir, std::string_view name) {
  if (!name.empty() && name.front() == '/') return normalize_path(name);
  return normalize_path(std::string(dir) + "/" + std::string(name));
}

std::string dir_name(std::string_view path) {
  auto norm = normalize_path(path);
  auto pos = norm.rfind('/');
  return pos == 0 ? "/" : norm.substr(0, pos);
}

std::string base_name(std::string_view path) {
  auto pos = path.rfind('/');
  return std::string(pos == std::string_view::npos ? path : path.substr(pos + 1));
}

struct FsRoot::ResolveCache {
  std::mutex mutex;
  std::unordered_map<std::string, std::string> dirs;  // machine path as asked -> resolved machine path
};

// A relative --root is relative to the working directory, not to "/".
FsRoot::FsRoot(std::string root)
    : root_(normalize_path(root.empty() || root.front() == '/' ? root
                                                               : std::filesystem::absolute(root).string())),
      cache_(std::make_shared<ResolveCache>()) {}

std::string FsRoot::host_path(std::string_view machine_path) const {
  auto norm = normalize_path(machine_path);
  if (is_real_root()) return norm;
  return norm == "/" ? root_ : root_ + norm;
}

std::string FsRoot::host_path_followed(std::string_view machine_path) const {
  if (is_real_root()) return host_path(machine_path);
  // The host kernel would follow an absolute symlink out of the tree; resolve
  // it inside the root first. An unresolvable path keeps its own name, so the
  // open() that follows reports the error.
  auto resolved = resolve(machine_path);
  if (resolved) return host_path(*resolved.path);
  if (!resolved.failed_at.empty()) return host_path(resolved.failed_at);
  // A loop or an unreadable link: a name no directory can hold (ENAMETOOLONG).
  return root_ + "/" + std::string(300, 'L');
}

ReadResult FsRoot::read_file(std::string_view path, std::size_t max_bytes) const {
  ReadResult result;
  auto host = host_path_followed(path);
  // O_NONBLOCK so a FIFO planted where a file is expected cannot block us.
  int fd = ::open(host.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    result.error = std::strerror(errno);
    return result;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    result.error = S_ISDIR(st.st_mode) ? "is a directory" : std::strerror(errno);
    ::close(fd);
    return result;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    result.error = "not a regular file";
    return result;
  }
  std::string data;
  // /proc and /sys files report size 0, so read until EOF, bounded.
  char buf[8192];
  while (true) {
    auto n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      result.error = std::strerror(errno);
      ::close(fd);
      return result;
    }
    if (n == 0) break;
    if (data.size() + static_cast<std::size_t>(n) > max_bytes) {
      ::close(fd);
      result.error = fmt::format("larger than {}, not read", human_size(max_bytes));
      return result;
    }
    data.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  result.data = std::move(data);
  return result;
}

std::vector<std::string> FsRoot::list_dir(std::string_view path) const {
  std::vector<std::string> names;
  DIR* dir = ::opendir(host_path_followed(path).c_str());
  if (dir == nullptr) return names;
  while (auto* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    names.emplace_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

bool FsRoot::exists(std::string_view path) const {
  auto resolved = resolve(path);
  if (!resolved) return false;
  struct stat st {};
  return ::lstat(host_path(*resolved.path).c_str(), &st) == 0;
}

bool FsRoot::is_dir(std::string_view path) const {
  auto resolved = resolve(path);
  struct stat st {};
  return resolved && ::stat(host_path(*resolved.path).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool FsRoot::is_regular_file(std::string_view path) const {
  auto resolved = resolve(path);
  struct stat st {};
  return resolved && ::stat(host_path(*resolved.path).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The host path of `path` with its directory resolved inside the root but
// its last component left as it is (for lstat and readlink).
static std::string host_path_of_entry(const FsRoot& root, std::string_view path) {
  auto norm = normalize_path(path);
  if (root.is_real_root() || norm == "/") return root.host_path(norm);
  return join_path(root.host_path_followed(dir_name(norm)), base_name(norm));
}

bool FsRoot::is_symlink(std::string_view path) const {
  struct stat st {};
  return ::lstat(host_path_of_entry(*this, path).c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

bool FsRoot::is_char_device(std::string_view path) const {
  auto resolved = resolve(path);
  struct stat st {};
  return resolved && ::stat(host_path(*resolved.path).c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

std::optional<std::string> FsRoot::read_link(std::string_view path) const {
  char buf[4096];
  auto n = ::readlink(host_path_of_entry(*this, path).c_str(), buf, sizeof buf);
  if (n < 0 || static_cast<std::size_t>(n) >= sizeof buf) return std::nullopt;
  return std::string(buf, static_cast<std::size_t>(n));
}

ResolveResult FsRoot::resolve(std::string_view path) const {
  auto norm = normalize_path(path);
  if (norm == "/") return ResolveResult{std::string("/"), {}, {}};
  // The parent directory is resolved once and remembered; only the last
  // component is looked at for each file in it.
  auto parent = dir_name(norm);
  std::string current;
  if (parent != "/") {
    {
      std::lock_guard lock(cache_->mutex);
      auto it = cache_->dirs.find(parent);
      if (it != cache_->dirs.end()) current = it->second;
    }
    if (current.empty()) {
      auto resolved = resolve_from("", split_components(parent), path);
      if (!resolved) return resolved;
      current = *resolved.path;
      std::lock_guard lock(cache_->mutex);
      cache_->dirs.emplace(parent, current);
    }
    if (current == "/") current.clear();
  }
  return resolve_from(std::move(current), {base_name(norm)}, path);
}

ResolveResult FsRoot::resolve_from(std::string current, std::vector<std::string> pending,
                                   std::string_view path) const {
  constexpr int kMaxSymlinks = 40;  // the kernel's own limit (MAXSYMLINKS)
  ResolveResult result;
  std::reverse(pending.begin(), pending.end());
  // `current` is the resolved prefix (machine path, "" for the root).
  int followed = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.back());
    pending.pop_back();
    if (part == "." || part.empty()) continue;
    if (part == "..") {
      current = current.empty() ? "" : dir_name(current);
      if (current == "/") current.clear();
      continue;
    }
    std::string next = current + "/" + part;
    struct stat st {};
    if (::lstat(host_path(next).c_str(), &st) != 0) {
      result.error = fmt::format("{}: {}", next, std::strerror(errno));
      result.failed_at = next;
      return result;
    }
    if (S_ISLNK(st.st_mode)) {
      if (++followed > kMaxSymlinks) {
        result.error = fmt::format("{}: too many levels of symbolic links", path);
        return result;
      }
      // `next` is already resolved (its directory holds no link), so the raw readlink is safe.
      std::optional<std::string> target;
      char link_buf[4096];
      auto len = ::readlink(host_path(next).c_str(), link_buf, sizeof link_buf);
      if (len >= 0 && static_cast<std::size_t>(len) < sizeof link_buf)
        target = std::string(link_buf, static_cast<std::size_t>(len));
      if (!target) {
        result.error = fmt::format("{}: unreadable symbolic link", next);
        return result;
      }
      auto target_parts = split_components(*target);
      for (auto it = target_parts.rbegin(); it != target_parts.rend(); ++it) pending.push_back(*it);
      if (!target->empty() && target->front() == '/') current.clear();
      continue;
    }
    current = std::move(next);
  }
  result.path = current.empty() ? "/" : current;
  return result;
}

bool FsRoot::can_read_write(std::string_view path) const {
  return ::access(host_path_followed(path).c_str(), R_OK | W_OK) == 0;
}

std::optional<std::size_t> FsRoot::file_size(std::string_view path) const {
  struct stat st {};
  if (::stat(host_path_followed(path).c_str(), &st) != 0) return std::nullopt;
  return static_cast<std::size_t>(st.st_size);
}

}  // namespace cudiag
