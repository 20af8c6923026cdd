#pragma once
// Shared by the inspector tests that compare with cuobjdump: where it is and
// what it prints. Header-only so both test binaries can include it.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/subprocess.h"

namespace cudiag::inspect_test {

// $CUDIAG_CUOBJDUMP, else the one CMake found, else "" (tests then skip).
inline std::string cuobjdump_path() {
  if (const char* env = std::getenv("CUDIAG_CUOBJDUMP"); env && *env) return env;
  std::string configured = CUDIAG_CUOBJDUMP_PATH;
  std::error_code ec;
  if (!configured.empty() && std::filesystem::exists(configured, ec)) return configured;
  return "";
}

struct CuobjdumpRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `cuobjdump --list-elf --list-ptx <path>`.
inline CuobjdumpRun run_cuobjdump_list(const std::string& tool, const std::string& path) {
  ChildSpec spec;
  spec.argv = {tool, "--list-elf", "--list-ptx", path};
  auto outcome = run_children({spec}, std::chrono::milliseconds(300000)).at(0);
  return {outcome.status == ChildOutcome::Status::kExited ? outcome.exit_code : -1, outcome.out, outcome.err};
}

}  // namespace cudiag::inspect_test
