// `cudiag plan --driver V | --cuda V | --torch V | --gpu NAME`: what changes if
// one layer moves, what else must move with it (from the knowledge base), and
// the order, one layer at a time. The change is overlaid on the report with
// --assume's overlay (report/assume.h) and re-diagnosed, so the findings
// before and after come from the same rules as `cudiag check`.
#include "cli/command.h"
#include "cli/report_pipeline.h"
#include "kb/knowledge_base.h"
#include "render/output.h"
#include "render/plan_text.h"
#include "report/assume.h"
#include "workflow/plan.h"

namespace cudiag::cli {
namespace {

struct PlanArgs {
  workflow::PlanRequest change;
  std::string report, format = "text";
  PipelineArgs pipeline;
};

CommandRun setup_plan(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<PlanArgs>();
  auto* g = app.add_option_group("change", "The one layer that moves");
  g->add_option("--driver", args->change.driver, "A new host driver, e.g. 570.86.10");
  g->add_option("--cuda", args->change.cuda, "A new CUDA runtime/toolkit, e.g. 12.8");
  g->add_option("--torch", args->change.torch, "A new PyTorch build, e.g. 2.7.0+cu128");
  g->add_option("--gpu", args->change.gpu, "A new GPU, e.g. \"RTX 5090\" or sm_120");
  g->require_option(1);
  app.add_option("--report", args->report,
                 "Plan from a saved report (JSON, '-' for stdin) instead of this machine");
  app.add_option("--format", args->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  add_pipeline_options(app, args->pipeline);
  return [args, &global] {
    const auto& kb = kb::active_kb(global);
    Json before = machine_or_saved_report(args->report, global, args->pipeline);
    auto plan = workflow::plan_change(before, kb, args->change);
    Json after = before;
    if (!plan.assumptions.empty()) report::apply_assumptions(after, plan.assumptions, kb);
    diagnose_into(after, global);
    auto changes = workflow::error_changes(before, after);
    if (args->format == "json") {
      render::write_json_output(workflow::plan_json(plan, changes), {});
      return 0;
    }
    render::write_output(render::plan_text(plan, changes), render::OutputKind::kText, {});
    return 0;
  };
}

const RegisterCommand kPlan{
    {"plan", "What else must move if one layer changes, and in which order", 43, setup_plan}};

}  // namespace
}  // namespace cudiag::cli
