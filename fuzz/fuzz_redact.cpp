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
  auto escaped = cudiag::escape_terminal(cudiag::redact_secrets(text));
  for (unsigned char c : escaped) {
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) std::abort();
  }
  const std::string token = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ng0000abcd";
  auto planted = cudiag::redact_secrets(text + " " + token + " " + text);
  if (planted.find("R4nd0mT0k3nV4lu3F0rT3st1ng0000abcd") != std::string::npos) std::abort();
  cudiag::forget_learned_secrets();
  return 0;
}
