// `cudiag check` (and bare `cudiag`): collect, diagnose, print the human
// report. Exit 0 when no error finding, 1 when there is one.
#include <algorithm>
#include <iostream>

#include "cli/command.h"
#include "cli/report_pipeline.h"
#include "kernel_test/deep_check.h"
#include "render/render.h"

namespace cudiag {
namespace {

struct CheckArgs {
  std::string format = "text";
  bool deep = false;  // also run a real kernel (cudiag test) and report it as kernel_test
  PipelineArgs pipeline;
};

CommandRun setup_check(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<CheckArgs>();
  app.add_option("--format", args->format, "Output format")->check(CLI::IsMember(report_formats()));
  add_pipeline_options(app, args->pipeline);
  app.add_flag("--deep", args->deep, "Also launch a real kernel on every GPU (as `cudiag test`) and report it");
  return [args, &global] {
    auto result = run_pipeline(global, args->pipeline);
    int deep_exit = args->deep ? kernel_test::add_kernel_test(result.report, global) : 0;
    std::cout << render_report(result.report, args->format, render_options(global, true));
    if (args->deep && args->format == "text") {
      std::cout << kernel_test::kernel_test_text(result.report, render_options(global, true).color);
    }
    return std::max(result.exit_code, deep_exit);
  };
}

const RegisterCommand kCheck{{"check", "Check this machine's CUDA stack layer by layer (the default command)", 10, setup_check}};

}  // namespace
}  // namespace cudiag
