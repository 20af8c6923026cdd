// `cudiag check` (and bare `cudiag`): collect, diagnose, print the human
// report. Exit 0 when no error finding, 1 when there is one.
#include <algorithm>
#include <iostream>

#include "cli/command.h"
#include "cli/report_pipeline.h"
#include "kb/knowledge_base.h"
#include "kernel_test/deep_check.h"
#include "render/output.h"
#include "render/render.h"
#include "workflow/requirements.h"

namespace cudiag {
namespace {

struct CheckArgs {
  std::string format = "text";
  bool include_identity = false;
  bool deep = false;  // also run a real kernel (cudiag test) and report it as kernel_test
  std::vector<std::string> requires_;  // --require KEY OP VERSION: a CI gate (workflow/requirements.h)
  std::string output;                  // -o FILE: write the rendered report there (atomically)
  PipelineArgs pipeline;
};

CommandRun setup_check(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<CheckArgs>();
  app.add_option("--format", args->format, "Output format")->check(CLI::IsMember(report_formats()));
  add_pipeline_options(app, args->pipeline);
  add_no_collect_option(app, args->pipeline);
  add_identity_flag(app, args->include_identity);
  app.add_flag("--deep", args->deep, "Also launch a real kernel on every GPU (as `cudiag test`) and report it");
  app.add_option("--require", args->requires_,
                 "Fail (exit 1) unless KEY OP VERSION holds, e.g. 'driver>=550', 'torch.cuda==12.4', "
                 "kernel-test (repeatable; docs/ci.md lists the keys)");
  app.add_option("-o,--output", args->output, "Write the output to FILE (atomically) instead of stdout");
  return [args, &global] {
    std::vector<workflow::Requirement> requirements;
    for (const auto& r : args->requires_) requirements.push_back(workflow::parse_requirement(r));
    // The kernel test asks whether kernels run; the libraries' architectures say which could.
    if (args->deep) args->pipeline.binaries = true;
    auto result = run_pipeline(global, args->pipeline);
    int deep_exit = args->deep ? kernel_test::add_kernel_test(result.report, global) : 0;
    int require_exit = 0;
    if (!requirements.empty()) {
      auto stack = workflow::read_stack(result.report, kb::active_kb(global));
      auto results = workflow::evaluate_all(requirements, stack);
      result.report["requirements"] = workflow::requirements_to_json(results);
      for (const auto& r : results) require_exit = r.satisfied ? require_exit : 1;
    }
    bool to_stdout = args->output.empty();
    std::string text =
        render_report(result.report, args->format, render_options(global, to_stdout, args->include_identity));
    if (args->deep && args->format == "text") {
      text += kernel_test::kernel_test_text(result.report, render_options(global, to_stdout).color);
    }
    if (!requirements.empty() && args->format == "text")
      text += workflow::requirements_text(result.report["requirements"]);
    write_output(text, output_kind_of_format(args->format),
                 {args->output, args->include_identity, render_options(global, to_stdout).color});
    return std::max({result.exit_code, deep_exit, require_exit});
  };
}

const RegisterCommand kCheck{{"check", "Check this machine's CUDA stack layer by layer (the default command)", 10, setup_check}};

}  // namespace
}  // namespace cudiag
