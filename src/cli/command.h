#pragma once
// Commands register themselves: a file src/cli/cmd_<name>.cpp defines a
// static RegisterCommand, so adding a command touches no other file.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace cudiag {

// Options every command shares; set on the top-level app.
struct GlobalOptions {
  std::string root = "/";      // --root: the machine to read (a fixture tree in tests)
  double timeout_s = 10.0;     // --timeout: per child process that calls into an NVIDIA library
  std::string kb_dir;          // --kb: override the embedded knowledge base
  bool no_color = false;       // --no-color (NO_COLOR in the environment does the same)
};

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

}  // namespace cudiag
