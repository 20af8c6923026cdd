// cudiag's entry point: a child re-execution goes straight to the child probe
// before any other start-up work; everything else is the command line.
#include <cstring>

#include "child/child_probe.h"
#include "cli/command.h"

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], cudiag::child::kChildProbeArg) == 0) {
    return cudiag::child::run_child_probe(argc, argv);
  }
  return cudiag::cli::run_cli(argc, argv);
}
