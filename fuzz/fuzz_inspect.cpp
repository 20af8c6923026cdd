// Fuzzes the static inspector's entry point for bytes: ELF headers and
// dynamic section, `ar` archives, fatbin blobs and entries, cubin headers,
// zstd/LZ4 payload heads and PTX text — everything `cudiag inspect` reads from
// a file it was pointed at, which may be truncated, corrupt or hostile. The
// formatters and the verdict run on whatever was parsed, as the command does.
#include <cstddef>
#include <cstdint>
#include <string>

#include "inspect/inspect.h"
#include "inspect/listing.h"
#include "inspect/verdict.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cudiag::inspect;
  InspectOptions options;
  options.read_payload_heads = true;  // also decode compressed heads and PTX text
  InspectResult r = inspect_bytes(ByteView(data, size), "fuzz", options);
  (void)summary_line(r);
  // As the command prints it, written directly (not through a Json tree), so
  // what it writes must still parse as JSON whatever the bytes said.
  std::string json;
  append_json(r, json, 0);
  if (cudiag::Json::parse(json, nullptr, false).is_discarded()) __builtin_trap();
  (void)cuobjdump_listing(r, "fuzz.bin");
  for (const char* gpu : {"sm_90", "sm_100", "sm_121"})
    (void)file_verdict(r, *parse_gpu_arch(gpu), PtxIsa{8, 8});
  return 0;
}
