// Fuzzes the /etc/ld.so.cache reader (old, new and combined formats): the
// file comes from the inspected machine or a fixture tree, so it is input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "machine/ld_cache.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto cache = cudiag::machine::parse_ld_cache(std::string_view(reinterpret_cast<const char*>(data), size));
  for (const auto& e : cache.entries) (void)e.x86_64();
  return 0;
}
