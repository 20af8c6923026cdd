// `cudiag explain "ERROR TEXT"` (or `-` / nothing: standard input, or
// --file LOG): recognise the CUDA, NVML, container and framework error
// messages in the text, say which layer each points at, what it means, the
// likely causes and the checks that tell them apart, and - from this
// machine's report (collected, or --report FILE) - what applies here.
// Exit 0 when something was recognised, 1 when nothing was, 2 for bad input.
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>

#include "cli/command.h"
#include "cli/explain_facts.h"
#include "cli/report_pipeline.h"
#include "core/bounded_input.h"
#include "core/errors.h"
#include "explain/explain.h"
#include "explain/pasted_facts.h"
#include "explain/render.h"
#include "explain/similar_reports.h"
#include "kb/knowledge_base.h"
#include "render/output.h"
#include "report/assume.h"
#include "report/collect.h"
#include "workflow/report_input.h"

namespace cudiag::cli {
namespace {

struct ExplainArgs {
  std::vector<std::string> text;
  std::string file;
  std::string report;
  bool no_collect = false;
  std::string format = "text";
  PipelineArgs pipeline;
};

// A log: a regular file or a pipe (--file <(journalctl ...)), bounded.
std::string read_input_file(const std::string& path) { return read_input_bytes(path); }

int run_explain(const ExplainArgs& args, const GlobalOptions& global) {
  if (!args.file.empty() && !args.text.empty())
    throw InputError("explain: give the message or --file LOG, not both");
  if (!args.report.empty() && args.no_collect)
    throw InputError("explain: --report and --no-collect contradict each other");
  // A bad --report is bad input whatever the text says, so it is read first.
  std::optional<Json> saved;
  if (!args.report.empty()) saved = load_saved_report(args.report);

  explain::ExplainResult result;
  explain::ExplainOptions options;
  std::string text;
  if (!args.file.empty()) {
    text = read_input_file(args.file);
    result.input = args.file;
  } else if (args.text.empty() || (args.text.size() == 1 && args.text.front() == "-")) {
    text = read_input_bytes("-");
    result.input = "standard input";
  } else {
    for (const auto& word : args.text) text += (text.empty() ? "" : " ") + word;
    result.input = "the argument";
    options.require_context = false;  // the user pasted this one message on purpose
  }
  result.input_lines =
      static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + (text.empty() ? 0 : 1);

  const auto& kb = kb::active_kb(global);
  // A bad --assume is bad input whatever the text says (exit 2), checked before anything runs.
  {
    Json probe = report::new_report();
    report::apply_assumptions(probe, args.pipeline.assumptions, kb);
  }
  result.explanations = explain::explain_text(text, kb, options);
  auto pasted = explain::read_pasted_facts(text);
  const auto& assumptions = args.pipeline.assumptions;
  bool stated = !assumptions.empty() || !pasted.empty();

  // Pasted dumps describe the reporter's machine: they are diagnosed on their own
  // (with --assume), not mixed into this machine's report; --report FILE is the
  // reporter's machine too, so they overlay it.
  std::optional<Json> report;
  if (saved) {
    report = std::move(*saved);
    result.machine_source = "report " + args.report;
    result.collected = true;
  } else if (stated && (args.no_collect || !pasted.empty())) {
    report = report::new_report();
    (*report)["collected"] = false;
    result.machine_source = pasted.empty() ? "the --assume facts" : "the facts of the pasted text";
  } else if (!result.explanations.empty() && !args.no_collect) {
    // Collecting costs child processes, so only when there is something to explain.
    report = run_pipeline(global, args.pipeline).report;  // applies --assume itself
    result.machine_source = "collected now";
    result.collected = true;
  }
  if (report) {
    for (const auto& a : assumptions) result.stated.push_back(a + " (--assume)");
    // A collected report has --assume applied by the pipeline already.
    bool overlay = saved.has_value() || !result.collected;
    if (overlay && stated) {
      auto facts = apply_stated_facts(*report, assumptions, pasted, kb);
      for (const auto& f : facts.applied)
        result.stated.push_back(
            fmt::format("{} (from the pasted text, line {}: {})", f.assumption(), f.line, f.what));
      result.skipped = facts.skipped;
      diagnose_into(*report, global);
    }
    explain::add_machine_lines(result.explanations, *report, kb);
    if (stated) result.findings = stated_findings(*report, result.explanations, kb);
    result.report = &*report;
  } else {
    explain::add_message_fixes(result.explanations, kb);
  }
  auto similar = explain::similar_reports_for(text, kb);
  for (const auto& s : similar)
    if (s.similarity >= explain::kMinShownSimilarity && result.similar.size() < explain::kSimilarShown)
      result.similar.push_back(s);
  result.verdict = explain::decide_or_guess(text, result.explanations, result.findings, kb, similar);
  // Redacted at the writer: the pasted text and the machine lines are echoed.
  if (args.format == "json") {
    render::write_json_output(explain::render_json(result), {});
  } else {
    render::write_output(explain::render_text(result), render::OutputKind::kText, {});
  }
  bool error_found = std::any_of(result.findings.begin(), result.findings.end(),
                                 [](const Json& f) { return f.value("severity", "") == "error"; });
  return result.explanations.empty() && !error_found ? kExitErrorFinding : kExitOk;
}

CommandRun setup_explain(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<ExplainArgs>();
  app.add_option("text", args->text,
                 "The error message (several words are joined); '-' or nothing reads standard input");
  app.add_option("--file", args->file, "Scan this log for every message cudiag recognises");
  app.add_option("--report", args->report,
                 "Compare with this saved report (cudiag report -o FILE) instead of collecting one");
  app.add_flag("--no-collect", args->no_collect, "Explain the text only; do not look at this machine");
  app.add_option("--format", args->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  add_pipeline_options(app, args->pipeline);
  return [args, &global] { return run_explain(*args, global); };
}

const RegisterCommand kExplain{
    {"explain",
     "Explain a CUDA/NVML/container/framework error message (or every one in a log) for this machine", 40,
     setup_explain}};

}  // namespace
}  // namespace cudiag::cli
