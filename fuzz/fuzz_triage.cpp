// libFuzzer target: explain's word guess (src/explain/triage.cpp) over any
// pasted text, with the built-in triage_terms table. Whatever the bytes, it
// returns a guess whose lines lie in the text, or none, and never reads past
// a line. fuzz/run.sh runs from the repository root, where the table is.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

#include "core/json.h"
#include "explain/triage.h"

namespace {

const cudiag::Json& table() {
  static const cudiag::Json t = [] {
    std::ifstream in("data/kb/triage_terms.json");
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = cudiag::Json::parse(text.str(), nullptr, false);
    if (parsed.is_discarded() || !parsed.contains("entries")) std::abort();  // run from the repository root
    return parsed;
  }();
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto guess = cudiag::explain::guess_from_words(text, table());
  if (guess) {
    std::size_t lines = 1;
    for (char c : text) lines += c == '\n' ? 1 : 0;
    if (guess->term_line == 0 || guess->term_line > lines || guess->symptom_line == 0 ||
        guess->symptom_line > lines || guess->layer.empty())
      std::abort();
  }
  return 0;
}
