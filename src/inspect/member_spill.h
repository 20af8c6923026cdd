#pragma once
// A wheel member's bytes, inflated once for inspection. Small members stay in
// memory; large ones are streamed into an unlinked temporary file (O_TMPFILE:
// it never has a name and is gone when closed, so nothing on the machine
// changes) and mapped read-only. Inspecting a wheel whose libcublasLt.so
// inflates to 700 MB then costs page cache the kernel can drop, not 700 MB of
// heap (#17).
#include <zip.h>

#include <cstdint>
#include <string>

#include "inspect/byte_view.h"
#include "inspect/zip_api.h"

namespace cudiag::inspect {

// Members up to this size are inflated into memory: cheaper than a file.
inline constexpr std::uint64_t kInMemoryMemberBytes = 64ull << 20;

class InflatedMember {
 public:
  InflatedMember() = default;
  InflatedMember(const InflatedMember&) = delete;
  InflatedMember& operator=(const InflatedMember&) = delete;
  ~InflatedMember();

  ByteView view() const;
  bool spilled() const { return mapping_ != nullptr; }  // tests

 private:
  friend bool inflate_member(const ZipApi&, zip_t*, zip_uint64_t, std::uint64_t, InflatedMember&,
                             std::string&, std::uint64_t);
  std::string bytes_;
  void* mapping_ = nullptr;
  std::uint64_t mapped_size_ = 0;
};

// Inflates member `index` (`size` bytes once inflated) into `out`. Members
// larger than `in_memory_limit` go through a temporary file in $TMPDIR (or
// /tmp). Returns false with `error` saying why ("short read", "no room in
// /tmp: needs N bytes").
bool inflate_member(const ZipApi& zip, zip_t* z, zip_uint64_t index, std::uint64_t size, InflatedMember& out,
                    std::string& error, std::uint64_t in_memory_limit = kInMemoryMemberBytes);

}  // namespace cudiag::inspect
