// `cudiag verify LOCK`: exit 0 while the stack matches the lock file, 1 with a
// layer-by-layer drift report (and whether the drifted stack still passes the
// compatibility rules), 2 when the lock file or report is bad.
#include <iostream>

#include "cli/command.h"
#include "cli/report_pipeline.h"
#include "kb/knowledge_base.h"
#include "render/output.h"
#include "workflow/lock_file.h"
#include "workflow/report_input.h"
#include "workflow/stack.h"
#include "workflow/verify.h"

namespace cudiag::cli {
namespace {

struct VerifyArgs {
  std::string lock;
  std::string report;
  std::string format = "text";
  PipelineArgs pipeline;
};

CommandRun setup_verify(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<VerifyArgs>();
  app.add_option("lock", args->lock, "The lock file written by `cudiag lock`")->required();
  app.add_option("--report", args->report,
                 "Verify a saved report (JSON, '-' for stdin) instead of this machine");
  app.add_option("--format", args->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  add_pipeline_options(app, args->pipeline);
  return [args, &global] {
    // The lock first: a bad lock file should not cost a collection.
    auto lock = workflow::parse_lock(workflow::read_input_text(args->lock), args->lock);
    Json report = machine_or_saved_report(args->report, global, args->pipeline);
    auto stack = workflow::read_stack(report, kb::active_kb(global));
    auto result = workflow::verify_lock(lock, stack, report);
    if (args->format == "json") {
      render::write_json_output(workflow::verify_to_json(result, args->lock), {});
    } else {
      render::write_output(workflow::render_verify_text(result, args->lock), render::OutputKind::kText, {});
    }
    return result.drifted ? 1 : 0;
  };
}

const RegisterCommand kVerify{{"verify",
                               "Check the stack against a lock file; exit 1 with the drift, layer by layer",
                               41, setup_verify}};

}  // namespace
}  // namespace cudiag::cli
