// `cudiag check` (and bare `cudiag`): collect, diagnose, print the human
// report. Exit 0 when no error finding, 1 when there is one.
#include <iostream>

#include "cli/command.h"
#include "cli/report_pipeline.h"
#include "render/render.h"

namespace cudiag {
namespace {

struct CheckArgs {
  std::string format = "text";
  PipelineArgs pipeline;
};

CommandRun setup_check(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<CheckArgs>();
  app.add_option("--format", args->format, "Output format")->check(CLI::IsMember(report_formats()));
  add_pipeline_options(app, args->pipeline);
  return [args, &global] {
    auto result = run_pipeline(global, args->pipeline);
    std::cout << render_report(result.report, args->format, render_options(global, true));
    return result.exit_code;
  };
}

const RegisterCommand kCheck{{"check", "Check this machine's CUDA stack layer by layer (the default command)", 10, setup_check}};

}  // namespace
}  // namespace cudiag
