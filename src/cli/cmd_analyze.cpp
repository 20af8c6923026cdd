// `cudiag analyze REPORT.json`: diagnose a report collected elsewhere (a
// colleague's, a CI runner's), optionally with --assume overlays. A partial
// report is fine: a missing layer is unknown and the rules that need it stay
// silent. Exit 0 when no error finding, 1 when there is one, 2 bad input.
#include <iostream>

#include "cli/command.h"
#include "cli/report_pipeline.h"
#include "kb/knowledge_base.h"
#include "render/output.h"
#include "render/render.h"
#include "report/assume.h"
#include "workflow/fleet_view.h"
#include "workflow/report_input.h"

namespace cudiag::cli {
namespace {

struct AnalyzeArgs {
  std::string path;
  std::string format = "text";
  std::string output;
  std::vector<std::string> assumptions;
  bool include_identity = false;
};

CommandRun setup_analyze(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<AnalyzeArgs>();
  app.add_option("report", args->path, "A report written by `cudiag report --format json` (- for stdin)")
      ->required();
  app.add_option("--format", args->format, "Output format")->check(CLI::IsMember(render::report_formats()));
  app.add_option("-o,--output", args->output, "Write to FILE (atomically) instead of stdout");
  app.add_option("--assume", args->assumptions,
                 "Overlay a hypothetical fact KEY=VALUE (repeatable; see `cudiag check --help`)");
  render::add_identity_flag(app, args->include_identity);
  return [args, &global] {
    Json report = load_saved_report(args->path);
    report::apply_assumptions(report, args->assumptions, kb::active_kb(global));
    int exit_code = diagnose_into(report, global);
    workflow::add_fleet_view_for(report, args->format, kb::active_kb(global));
    auto options = render::render_options(global, args->output.empty(), args->include_identity);
    auto text = render::render_report(report, args->format, options);
    render::write_output(text, render::output_kind_of_format(args->format),
                         {args->output, args->include_identity, options.color});
    return exit_code;
  };
}

const RegisterCommand kAnalyze{
    {"analyze", "Diagnose a report collected elsewhere (JSON from `cudiag report`)", 25, setup_analyze}};

}  // namespace
}  // namespace cudiag::cli
