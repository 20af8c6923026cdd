// `cudiag report`: the whole report, as JSON or text, to stdout or a file.
#include <iostream>

#include "cli/command.h"
#include "cli/report_pipeline.h"
#include "kb/knowledge_base.h"
#include "render/output.h"
#include "render/render.h"
#include "workflow/fleet_view.h"

namespace cudiag::cli {
namespace {

struct ReportArgs {
  std::string format = "json";
  std::string output;
  bool include_identity = false;
  PipelineArgs pipeline;
};

CommandRun setup_report(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<ReportArgs>();
  app.add_option("--format", args->format, "Output format")->check(CLI::IsMember(render::report_formats()));
  app.add_option("-o,--output", args->output, "Write to FILE (atomically) instead of stdout");
  add_pipeline_options(app, args->pipeline);
  add_no_collect_option(app, args->pipeline);
  render::add_identity_flag(app, args->include_identity);
  return [args, &global] {
    auto result = run_pipeline(global, args->pipeline);
    workflow::add_fleet_view_for(result.report, args->format, kb::active_kb(global));
    auto options = render::render_options(global, args->output.empty(), args->include_identity);
    auto text = render::render_report(result.report, args->format, options);
    render::write_output(text, render::output_kind_of_format(args->format),
                         {args->output, args->include_identity, options.color});
    return result.exit_code;
  };
}

const RegisterCommand kReport{{"report", "Write the whole report (JSON or text)", 20, setup_report}};

}  // namespace
}  // namespace cudiag::cli
