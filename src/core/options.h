#pragma once
// The options every command shares (--root, --timeout, --kb, --no-color).
// Set by the command line (src/cli/command.cpp), read by collection, the
// knowledge base loader, the kernel test and the renderers; kept here, not
// in cli/, so that none of those needs the command-line parser.
#include <string>

namespace cudiag {

struct GlobalOptions {
  std::string root = "/";   // --root: the machine to read (a fixture tree in tests)
  double timeout_s = 10.0;  // --timeout: per child process that calls into an NVIDIA library
  std::string kb_dir;       // --kb: override the embedded knowledge base
  bool no_color = false;    // --no-color (NO_COLOR in the environment does the same)
};

}  // namespace cudiag
