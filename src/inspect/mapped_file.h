#pragma once
// A file mapped read-only. The inspected file is untrusted and may be far
// larger than memory (libtorch_cuda.so is ~1 GB): it is never read whole,
// only the pages the parsers touch are faulted in, and it is never executed
// or dlopened.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "inspect/byte_view.h"

namespace cudiag::inspect {

class MappedFile {
 public:
  // Throws InputError("<path>: <strerror>") when the file cannot be opened or
  // mapped, and "<path>: not a regular file" for directories, devices, FIFOs.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  ByteView view() const { return ByteView(data_, size_); }
  std::uint64_t size() const { return size_; }
  // Drops the mapping's pages in [offset, offset + length) from this
  // process's resident set (the page cache keeps them). Used between big
  // fatbin sections so peak RSS stays far below the file size.
  void release(std::uint64_t offset, std::uint64_t length) const;
  // The first file offset at or after `offset` that is not inside a hole of
  // a sparse file (SEEK_DATA/SEEK_HOLE at open). A hole reads as zeros, so a
  // scan for fatbin magic can skip it: a 4 KB file whose .rodata claims
  // 16 GiB costs what is on disk, not 16 GiB of zero pages.
  std::uint64_t next_data(std::uint64_t offset) const;

 private:
  std::vector<std::pair<std::uint64_t, std::uint64_t>> holes_;  // [begin, end), sorted
  const unsigned char* data_ = nullptr;
  std::uint64_t size_ = 0;
};

}  // namespace cudiag::inspect
