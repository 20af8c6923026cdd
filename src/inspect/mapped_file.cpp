#include "inspect/mapped_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/errors.h"

namespace cudiag::inspect {

namespace {
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};
}  // namespace

MappedFile::MappedFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not hang; it is rejected below anyway.
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)};
  if (f.fd < 0) throw InputError(fmt::format("{}: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw InputError(fmt::format("{}: {}", path, std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) throw InputError(fmt::format("{}: not a regular file", path));
  size_ = static_cast<std::uint64_t>(st.st_size);
  if (size_ == 0) return;
  void* p = ::mmap(nullptr, static_cast<std::size_t>(size_), PROT_READ, MAP_PRIVATE, f.fd, 0);
  if (p == MAP_FAILED) throw InputError(fmt::format("{}: cannot map: {}", path, std::strerror(errno)));
  // Header walks jump from entry to entry; read-ahead would pull in the
  // payloads in between.
  ::madvise(p, static_cast<std::size_t>(size_), MADV_RANDOM);
  data_ = static_cast<const unsigned char*>(p);
  // Fewer blocks allocated than the size says: record the holes.
  if (static_cast<std::uint64_t>(st.st_blocks) * 512 + (1u << 20) < size_) {
    off_t at = 0;
    while (holes_.size() < 65536) {
      off_t hole = ::lseek(f.fd, at, SEEK_HOLE);
      if (hole < 0 || static_cast<std::uint64_t>(hole) >= size_) break;
      off_t data = ::lseek(f.fd, hole, SEEK_DATA);
      std::uint64_t end = data < 0 ? size_ : static_cast<std::uint64_t>(data);
      if (end - static_cast<std::uint64_t>(hole) >= (64u << 10))
        holes_.emplace_back(static_cast<std::uint64_t>(hole), end);
      if (data < 0) break;
      at = data;
    }
  }
}

std::uint64_t MappedFile::next_data(std::uint64_t offset) const {
  if (holes_.empty()) return offset;
  auto it = std::upper_bound(holes_.begin(), holes_.end(),
                             std::pair<std::uint64_t, std::uint64_t>{offset, ~std::uint64_t{0}});
  if (it == holes_.begin()) return offset;
  --it;
  // Holes are page-aligned; keep 16 bytes before the data so a header that
  // straddles the boundary is still seen.
  return offset >= it->first && offset < it->second ? (it->second >= 16 ? it->second - 16 : 0) : offset;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<unsigned char*>(data_), static_cast<std::size_t>(size_));
}

void MappedFile::release(std::uint64_t offset, std::uint64_t length) const {
  if (!data_ || offset >= size_) return;
  const long page = ::sysconf(_SC_PAGESIZE);
  std::uint64_t pg = page > 0 ? static_cast<std::uint64_t>(page) : 4096;
  std::uint64_t begin = offset / pg * pg;
  std::uint64_t end = length > size_ - offset ? size_ : offset + length;
  // A private read-only file mapping: MADV_DONTNEED only unmaps, and a later
  // touch faults the same file bytes back in.
  ::madvise(const_cast<unsigned char*>(data_) + begin, static_cast<std::size_t>(end - begin), MADV_DONTNEED);
}

}  // namespace cudiag::inspect
