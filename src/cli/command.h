#pragma once
// Commands register themselves: a file src/cli/cmd_<name>.cpp defines a
// static RegisterCommand, so adding a command touches no other file.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "core/options.h"

namespace cudiag::cli {

// GlobalOptions (--root, --timeout, --kb, --no-color): core/options.h.

using CommandRun = std::function<int()>;

struct CommandDef {
  std::string name;
  std::string summary;
  int order = 100;  // position in --help
  // Adds the command's options to `sub` and returns what runs when it is chosen.
  std::function<CommandRun(CLI::App& sub, const GlobalOptions& global)> setup;
};

const std::vector<CommandDef>& registered_commands();

struct RegisterCommand {
  explicit RegisterCommand(CommandDef def);
};

// The entry point behind main(); returns the process exit code.
int run_cli(int argc, char** argv);

}  // namespace cudiag::cli
