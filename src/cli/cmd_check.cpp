// Placeholder wired first so the skeleton builds; replaced by the real check.
#include <iostream>

#include "cli/command.h"

namespace cudiag {
namespace {
const RegisterCommand kCheck{{"check", "Check this machine's CUDA stack layer by layer (the default)", 10,
                              [](CLI::App&, const GlobalOptions&) -> CommandRun {
                                return [] {
                                  std::cout << "cudiag check\n";
                                  return 0;
                                };
                              }}};
}  // namespace
}  // namespace cudiag
