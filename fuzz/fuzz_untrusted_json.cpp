// Fuzzes the reader of every saved JSON input (reports for analyze, diff,
// plan, lock/verify/explain --report; --kb tables; the answer cache):
// parse_untrusted_json must either return a document or throw InputError —
// never crash, overflow the stack on deep nesting, or let another exception
// out — and what it returns must serialise (invalid UTF-8 replaced).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/bounded_input.h"
#include "core/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    auto doc = cudiag::parse_untrusted_json(text, "fuzz.json");
    (void)cudiag::json_text(doc);
  } catch (const cudiag::InputError&) {
  }
  return 0;
}
