// `cudiag check` (and bare `cudiag`): collect, diagnose, print the human
// report. Exit 0 when no error finding, 1 when there is one.
#include <iostream>

#include "cli/command.h"
#include "cli/report_pipeline.h"
#include "kb/knowledge_base.h"
#include "render/output.h"
#include "render/render.h"
#include "workflow/fleet_view.h"
#include "workflow/requirements.h"

namespace cudiag::cli {
namespace {

struct CheckArgs {
  std::string format = "text";
  bool include_identity = false;
  bool deep = false;                   // also run a real kernel (cudiag test) and report it as kernel_test
  std::vector<std::string> requires_;  // --require KEY OP VERSION: a CI gate (workflow/requirements.h)
  std::string output;                  // -o FILE: write the rendered report there (atomically)
  PipelineArgs pipeline;
};

CommandRun setup_check(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<CheckArgs>();
  app.add_option("--format", args->format, "Output format")->check(CLI::IsMember(render::report_formats()));
  add_pipeline_options(app, args->pipeline);
  add_no_collect_option(app, args->pipeline);
  render::add_identity_flag(app, args->include_identity);
  app.add_flag("--deep", args->deep,
               "Also launch a real kernel on every GPU (as `cudiag test`) and report it");
  app.add_option("--require", args->requires_,
                 "Fail (exit 1) unless KEY OP VERSION holds, e.g. 'driver>=550', 'torch.cuda==12.4', "
                 "kernel-test (repeatable; docs/ci.md lists the keys)");
  app.add_option("-o,--output", args->output, "Write the output to FILE (atomically) instead of stdout");
  return [args, &global] {
    for (const auto& r : args->requires_)
      args->pipeline.requirements.push_back(workflow::parse_requirement(r));
    // The kernel test asks whether kernels run; the libraries' architectures say which could.
    if (args->deep) args->pipeline.collect.binaries = args->pipeline.collect.confirm_library_versions = true;
    args->pipeline.deep = args->deep;
    auto result = run_pipeline(global, args->pipeline);
    workflow::add_fleet_view_for(result.report, args->format, kb::active_kb(global));
    bool to_stdout = args->output.empty();
    std::string text = render::render_report(
        result.report, args->format, render::render_options(global, to_stdout, args->include_identity));
    render::write_output(
        text, render::output_kind_of_format(args->format),
        {args->output, args->include_identity, render::render_options(global, to_stdout).color});
    // The kernel test and --require are findings like the others (rules/kernel_test_rules.cpp,
    // rules/requirement_rules.cpp), so the findings alone decide the exit code.
    return result.exit_code;
  };
}

const RegisterCommand kCheck{
    {"check", "Check this machine's CUDA stack layer by layer (the default command)", 10, setup_check}};

}  // namespace
}  // namespace cudiag::cli
