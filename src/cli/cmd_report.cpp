// `cudiag report`: the whole report, as JSON or text, to stdout or a file.
#include <iostream>

#include "cli/command.h"
#include "cli/report_pipeline.h"
#include "core/atomic_file.h"
#include "kb/knowledge_base.h"
#include "render/render.h"
#include "workflow/fleet_view.h"

namespace cudiag {
namespace {

struct ReportArgs {
  std::string format = "json";
  std::string output;
  bool include_identity = false;
  PipelineArgs pipeline;
};

CommandRun setup_report(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<ReportArgs>();
  app.add_option("--format", args->format, "Output format")->check(CLI::IsMember(report_formats()));
  app.add_option("-o,--output", args->output, "Write to FILE (atomically) instead of stdout");
  add_pipeline_options(app, args->pipeline);
  add_no_collect_option(app, args->pipeline);
  add_identity_flag(app, args->include_identity);
  return [args, &global] {
    auto result = run_pipeline(global, args->pipeline);
    workflow::add_fleet_view_for(result.report, args->format, kb::active_kb(global));
    auto text = render_report(result.report, args->format, render_options(global, args->output.empty(), args->include_identity));
    if (args->output.empty()) {
      std::cout << text;
    } else {
      write_file_atomically(args->output, text);
    }
    return result.exit_code;
  };
}

const RegisterCommand kReport{{"report", "Write the whole report (JSON or text)", 20, setup_report}};

}  // namespace
}  // namespace cudiag
