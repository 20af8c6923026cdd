// `cudiag lock`: pin this machine's known-good CUDA stack in a small TOML file
// that `cudiag verify` checks later (workflow/lock_file.h has the format).
#include <fmt/format.h>

#include <iostream>

#include "cli/command.h"
#include "cli/report_pipeline.h"
#include "kb/knowledge_base.h"
#include "render/output.h"
#include "workflow/lock_file.h"
#include "workflow/stack.h"

namespace cudiag::cli {
namespace {

struct LockArgs {
  std::string output = "cuda-stack.lock";
  std::string report;
  bool loose = false;
  PipelineArgs pipeline;
};

CommandRun setup_lock(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<LockArgs>();
  app.add_option("-o,--output", args->output, "Write the lock to FILE (atomically); '-' for stdout")
      ->capture_default_str();
  app.add_option("--report", args->report,
                 "Lock the stack of a saved report (JSON, '-' for stdin) instead of this machine");
  app.add_flag(
      "--loose", args->loose,
      "Write ranges instead of exact pins: the same driver branch, the same major.minor of each library");
  add_pipeline_options(app, args->pipeline);
  return [args, &global] {
    Json report = machine_or_saved_report(args->report, global, args->pipeline);
    auto stack = workflow::read_stack(report, kb::active_kb(global));
    workflow::LockWriteOptions options;
    options.loose = args->loose;
    options.comment = fmt::format("cudiag lock: the known-good CUDA stack, from the report collected at {}",
                                  report.value("collected_at", "an unknown time"));
    std::string text = workflow::write_lock(stack, options);
    render::write_output(text, render::OutputKind::kText, {args->output, false, false});
    if (args->output != "-") render::write_message(fmt::format("cudiag: wrote {}", args->output));
    const Json& findings = report["findings"];
    long errors = 0;
    for (const auto& f : findings) errors += f.value("severity", "") == "error" ? 1 : 0;
    if (errors > 0)
      render::write_message(
          fmt::format("cudiag: note: this stack has {} error finding(s); the lock pins it as it is", errors));
    return 0;
  };
}

const RegisterCommand kLock{
    {"lock", "Pin this machine's CUDA stack in a lock file for `verify`", 40, setup_lock}};

}  // namespace
}  // namespace cudiag::cli
