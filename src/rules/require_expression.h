#pragma once
// NVIDIA_REQUIRE_* as libnvidia-container evaluates it (src/cli/dsl.c):
//   requirement := or_term (' ' or_term)*      space = OR
//   or_term     := expr (',' expr)*            comma = AND
//   expr        := NAME OP VALUE,  NAME in cuda|driver|arch|brand (any case),
//                  OP in = != < <= > >=
// cuda/driver/arch compare as dotted versions (missing parts are 0); brand
// compares as a case-insensitive string with = and != only. A property whose
// value is unknown counts as satisfied, as in libnvidia-container.
#include <optional>
#include <string>
#include <vector>

namespace cudiag::rules {

struct RequireContext {
  std::optional<std::string> cuda;    // the driver's CUDA version, "12.2"
  std::optional<std::string> driver;  // "535.104.05"
  std::optional<std::string> arch;    // one GPU's compute capability, "9.0"
  std::optional<std::string> brand;   // NVML brand, "tesla"
};

struct RequireResult {
  bool valid = true;
  std::string error;  // when !valid: what is malformed
  bool satisfied = true;
  std::string first_term;  // the first space-separated alternative, as the runtime names it
};

RequireResult evaluate_requirement(const std::string& requirement, const RequireContext& ctx);

}  // namespace cudiag::rules
