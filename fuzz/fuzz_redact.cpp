// Fuzzes the output writer's redaction and terminal escaping over arbitrary
// text (a pasted log, a directory name, a saved report's strings): no crash,
// no hang, the result of escape_terminal() holds no control byte but tab and
// newline, and a planted token never survives whatever surrounds it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "render/output.h"
#include "render/redact.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto escaped = cudiag::render::escape_terminal(cudiag::render::redact_secrets(text));
  for (unsigned char c : escaped) {
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) std::abort();
  }
  // The planted token goes, whatever surrounds it: its tail may survive only
  // where the input itself already held it (not as a token).
  const std::string tail = "R4nd0mT0k3nV4lu3F0rT3st1ng0000abcd";
  auto count = [&](const std::string& s) {
    std::size_t n = 0;
    for (auto at = s.find(tail); at != std::string::npos; at = s.find(tail, at + 1)) ++n;
    return n;
  };
  auto planted = cudiag::render::redact_secrets(text + " ghp_" + tail + " " + text);
  if (count(planted) > 2 * count(text)) std::abort();
  cudiag::render::forget_learned_secrets();
  return 0;
}
