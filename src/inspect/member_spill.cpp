#include "inspect/member_spill.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace cudiag::inspect {

namespace {

struct ZipFileClose {
  const ZipApi* zip;
  void operator()(zip_file_t* f) const { zip->fclose(f); }
};

std::string temp_dir() {
  const char* t = std::getenv("TMPDIR");
  return t != nullptr && *t == '/' ? std::string(t) : std::string("/tmp");
}

// An anonymous file in `dir`: O_TMPFILE where the filesystem has it, else a
// mkostemp name unlinked at once (it exists for microseconds, mode 0600).
int anonymous_file(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string name = dir + "/.cudiag-member-XXXXXX";
  std::vector<char> buf(name.begin(), name.end());
  buf.push_back('\0');
  fd = ::mkostemp(buf.data(), O_CLOEXEC);
  if (fd >= 0) ::unlink(buf.data());
  return fd;
}

bool write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace

InflatedMember::~InflatedMember() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapped_size_);
}

ByteView InflatedMember::view() const {
  if (mapping_ != nullptr) return ByteView(static_cast<const unsigned char*>(mapping_), mapped_size_);
  return ByteView(bytes_);
}

bool inflate_member(const ZipApi& zip, zip_t* z, zip_uint64_t index, std::uint64_t size, InflatedMember& out,
                    std::string& error, std::uint64_t in_memory_limit) {
  std::unique_ptr<zip_file_t, ZipFileClose> f(zip.fopen_index(z, index, 0), ZipFileClose{&zip});
  if (!f) {
    error = "cannot open the member";
    return false;
  }
  if (size <= in_memory_limit) {
    out.bytes_.assign(static_cast<std::size_t>(size), '\0');
    std::uint64_t got = 0;
    while (got < size) {
      zip_int64_t r = zip.fread(f.get(), out.bytes_.data() + got, size - got);
      if (r <= 0) break;
      got += static_cast<std::uint64_t>(r);
    }
    if (got != size) {
      error = fmt::format("short read: {} of {} bytes", got, size);
      return false;
    }
    return true;
  }
  std::string dir = temp_dir();
  // Room first: a full /tmp must give a message, not a half-written file.
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) == 0) {
    std::uint64_t room = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    if (room < size + (64ull << 20)) {
      error = fmt::format("no room in {} to inflate it: needs {} bytes, {} free", dir, size, room);
      return false;
    }
  }
  int fd = anonymous_file(dir);
  if (fd < 0) {
    error = fmt::format("cannot make a temporary file in {}: {}", dir, std::strerror(errno));
    return false;
  }
  std::vector<char> buf(1u << 20);
  std::uint64_t got = 0;
  bool ok = true;
  while (got < size) {
    zip_int64_t r = zip.fread(f.get(), buf.data(), std::min<std::uint64_t>(buf.size(), size - got));
    if (r <= 0) break;
    if (!write_all(fd, buf.data(), static_cast<std::size_t>(r))) {
      ok = false;
      error = fmt::format("cannot write the temporary file in {}: {}", dir, std::strerror(errno));
      break;
    }
    got += static_cast<std::uint64_t>(r);
  }
  if (ok && got != size) {
    ok = false;
    error = fmt::format("short read: {} of {} bytes", got, size);
  }
  void* map =
      ok ? ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  int mmap_errno = errno;
  ::close(fd);
  if (!ok) return false;
  if (map == MAP_FAILED) {
    error = fmt::format("cannot map the temporary file: {}", std::strerror(mmap_errno));
    return false;
  }
  out.mapping_ = map;
  out.mapped_size_ = size;
  return true;
}

}  // namespace cudiag::inspect
