// `cudiag fleet PATH…`: many saved reports (a Slurm job array's or a
// DaemonSet's output directory) as one view: distinct stacks, the outliers
// against the majority, findings across the fleet, drift from a lock.
// Exit 0: every file read, one stack, no error finding (and no drift with
// --lock); 1 otherwise; 2 bad input (a PATH that does not exist, a bad lock).
#include <iostream>

#include "cli/command.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "kb/knowledge_base.h"
#include "render/fleet_render.h"
#include "render/output.h"
#include "render/render.h"
#include "workflow/fleet.h"
#include "workflow/lock_file.h"
#include "workflow/report_input.h"

namespace cudiag::cli {
namespace {

struct FleetArgs {
  std::vector<std::string> paths;
  std::string format = "text";
  std::string lock;
  std::string output;
  unsigned jobs = 0;
  std::size_t max_hosts = 10;
  bool include_identity = false;
};

CommandRun setup_fleet(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<FleetArgs>();
  app.add_option("paths", args->paths,
                 "Reports (.json, .json.gz, .json.zst), directories (searched recursively), or '-' for a "
                 "list of paths on stdin, one per line")
      ->required();
  app.add_option("--format", args->format, "Output format")->check(CLI::IsMember(render::fleet_formats()));
  app.add_option("--lock", args->lock, "List the nodes that violate this lock file (from `cudiag lock`)");
  app.add_option("-o,--output", args->output, "Write to FILE (atomically) instead of stdout");
  app.add_option("-j,--jobs", args->jobs, "Threads reading reports (default: one per CPU)");
  app.add_option("--max-hosts", args->max_hosts,
                 "Nodes named per line in text, md and html (0: all; json always lists all)");
  render::add_identity_flag(app, args->include_identity);
  return [args, &global] {
    // The lock first: a bad lock file should not cost reading the fleet.
    std::optional<workflow::LockFile> lock;
    if (!args->lock.empty()) lock = workflow::parse_lock(workflow::read_input_text(args->lock), args->lock);
    auto inputs = workflow::fleet::expand_inputs(args->paths, std::cin);
    workflow::fleet::FleetOptions options;
    options.jobs = args->jobs;
    options.lock = lock ? &*lock : nullptr;
    options.lock_name = args->lock;
    auto result = workflow::fleet::scan_fleet(inputs, kb::active_kb(global), options);
    render::redact_fleet(result, render::redact_options_for_this_process(args->include_identity));
    render::FleetRenderOptions render;
    render.max_hosts = args->max_hosts;
    auto text = render::render_fleet(result, args->format, render);
    // The hosts' names and paths were redacted above (redact_fleet). Text is
    // read on a terminal: it goes through the writer, which escapes control
    // characters (a host name is whatever a saved report says). The machine
    // formats (json, prometheus, nfd) escape their own strings.
    if (args->format == "text") {
      render::OutputOptions out;
      out.path = args->output;
      out.include_identity = args->include_identity;
      render::write_output(text, render::OutputKind::kText, out);
    } else if (args->output.empty()) {
      std::cout << text;
    } else {
      write_file_atomically(args->output, text);
    }
    return result.exit_code();
  };
}

const RegisterCommand kFleet{{"fleet",
                              "Aggregate many machines' saved reports: distinct stacks, outliers, findings, "
                              "drift; exit 1 unless one stack without errors",
                              44, setup_fleet}};

}  // namespace
}  // namespace cudiag::cli
