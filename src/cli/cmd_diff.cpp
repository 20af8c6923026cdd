// `cudiag diff A.json B.json`: what differs between two reports, layer by
// layer, compatibility first. Exit 0: nothing that matters for compatibility
// differs; 1: something does; 2: a report is missing or malformed.
#include <iostream>

#include "cli/command.h"
#include "cli/report_pipeline.h"
#include "core/errors.h"
#include "kb/knowledge_base.h"
#include "render/output.h"
#include "workflow/report_diff.h"
#include "workflow/report_input.h"

namespace cudiag::cli {
namespace {

struct DiffArgs {
  std::string a;
  std::string b;
  std::string format = "text";
};

CommandRun setup_diff(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<DiffArgs>();
  app.add_option("before", args->a, "The first report (JSON from `cudiag report`; '-' for stdin)")
      ->required();
  app.add_option("after", args->b, "The second report")->required();
  app.add_option("--format", args->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  return [args, &global] {
    if (args->a == "-" && args->b == "-")
      throw InputError("-: only one of the two reports can come from stdin");
    Json a = load_saved_report(args->a);
    Json b = load_saved_report(args->b);
    // Both diagnosed by the same rules and knowledge base, so a finding differs only when the stacks do.
    diagnose_into(a, global);
    diagnose_into(b, global);
    auto d = workflow::diff_reports(a, b, kb::active_kb(global));
    std::string na = args->a == "-" ? "<stdin>" : args->a;
    std::string nb = args->b == "-" ? "<stdin>" : args->b;
    if (args->format == "json") {
      render::write_json_output(workflow::diff_to_json(d, na, nb), {});
    } else {
      render::write_output(workflow::render_diff_text(d, na, nb), render::OutputKind::kText, {});
    }
    return d.matters() ? 1 : 0;
  };
}

const RegisterCommand kDiff{
    {"diff", "Compare two reports layer by layer; exit 1 when the stacks differ", 42, setup_diff}};

}  // namespace
}  // namespace cudiag::cli
