#include "cli/command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "core/bounded_input.h"
#include "core/build_info.h"
#include "core/errors.h"
#include "core/subprocess.h"
#include "render/output.h"
#include "workflow/report_input.h"

namespace cudiag::cli {

namespace {
std::vector<CommandDef>& command_table() {
  static std::vector<CommandDef> table;
  return table;
}
}  // namespace

const std::vector<CommandDef>& registered_commands() { return command_table(); }

RegisterCommand::RegisterCommand(CommandDef def) {
  auto& table = command_table();
  table.push_back(std::move(def));
  std::stable_sort(table.begin(), table.end(),
                   [](const CommandDef& a, const CommandDef& b) { return a.order < b.order; });
}

int run_cli(int argc, char** argv) {
  // Before any child exists: a signal mid-run kills and reaps every child.
  install_child_cleanup();
  CLI::App app{
      "cudiag: tells whether this machine's NVIDIA GPU stack works, which layer breaks it, and what to "
      "change."};
  app.name("cudiag");
  app.set_version_flag("--version",
                       fmt::format("cudiag {} ({})", build_info::kVersion, build_info::kGitCommit));
  GlobalOptions global;
  app.add_option("--root", global.root,
                 "Read the machine from this directory instead of / (captured machines, tests)")
      ->check(CLI::ExistingDirectory);
  app.add_option("--timeout", global.timeout_s,
                 "Seconds each NVIDIA library call may take before its child process is killed")
      ->check(CLI::Validator(
          [](std::string& s) {
            // NaN passes every range check (all comparisons are false), and infinity is no deadline.
            char* end = nullptr;
            double v = std::strtod(s.c_str(), &end);
            return std::isfinite(v) ? std::string() : s + ": not a finite number of seconds";
          },
          "FINITE", "finite"))
      ->check(CLI::Range(0.05, 3600.0));
  app.add_option("--kb", global.kb_dir,
                 "Use the knowledge base in this directory instead of the built-in one")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--no-color", global.no_color, "Never colour the output (NO_COLOR does the same)");
  app.fallthrough();
  app.require_subcommand(0, 1);

  std::vector<std::pair<CLI::App*, CommandRun>> runs;
  std::vector<std::pair<CLI::App*, std::function<CommandRun(CLI::App&, const GlobalOptions&)>>> setups;
  for (const auto& def : registered_commands()) {
    auto* sub = app.add_subcommand(def.name, def.summary);
    setups.emplace_back(sub, def.setup);
  }
  for (auto& [sub, setup] : setups) runs.emplace_back(sub, setup(*sub, global));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitBadInput;
  }
  try {
    for (auto& [sub, run] : runs) {
      if (sub->parsed()) return run();
    }
    // Bare `cudiag` is `cudiag check`.
    for (auto& [sub, run] : runs) {
      if (sub->get_name() == "check") return run();
    }
    std::cout << app.help();
    return kExitOk;
  } catch (const InputError& e) {
    render::write_message(std::string("cudiag: error: ") + e.what());
    return kExitBadInput;
  } catch (const Json::exception& e) {
    // A saved report, lock or cache of another shape than cudiag writes
    // (a field of the wrong type): bad input, named, exit 2.
    auto inputs = untrusted_inputs_read();
    std::string what = e.what();
    if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    if (!inputs.empty()) {
      // nlohmann names no field; the schema finds the one that is wrong, when it types it.
      auto field = workflow::wrong_field_in_saved_reports();
      render::write_message(
          field.empty()
              ? fmt::format("cudiag: error: {}: a field has an unexpected type or value: {}", inputs, what)
              : fmt::format("cudiag: error: {} ({})", field, what));
      return kExitBadInput;
    }
    render::write_message(std::string("cudiag: internal error: ") + e.what());
    return kExitInternal;
  } catch (const std::exception& e) {
    render::write_message(std::string("cudiag: internal error: ") + e.what());
    return kExitInternal;
  }
}

}  // namespace cudiag::cli
