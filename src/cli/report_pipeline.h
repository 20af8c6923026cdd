#pragma once
// The one pipeline: collect -> kernel test (check --deep) -> assumptions ->
// requirements (check --require) -> diagnose, shared by `check`, `report` and
// the commands built on them; the exit code comes from the findings alone.
// Renderers are applied by each command.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/command.h"
#include "core/collect_options.h"
#include "core/json.h"
#include "workflow/requirements.h"

namespace cudiag::cli {

struct PipelineArgs {
  // The collection flags fill this directly (--no-library-calls, --image-digest, --python, --no-frameworks,
  // --binaries, --confirm-versions): the one options struct from the command line to every probe. --root and
  // --timeout are global options, and the cache directory, the error namer and the work done while the
  // children run are set by run_pipeline().
  CollectOptions collect;
  bool no_cache = false;                 // ask every library for its version again
  std::vector<std::string> assumptions;  // --assume KEY=VALUE: hypothetical facts (report/assume.h)
  bool no_collect = false;               // --no-collect: diagnose only the assumptions
  bool deep = false;  // check --deep: run the kernel test after collecting, as the kernel_test layer
  // check --require: evaluated on the collected (and assumed) report before
  // diagnosis; each unsatisfied one is a finding (rules/requirement_rules.cpp).
  std::vector<workflow::Requirement> requirements;
};

struct PipelineResult {
  Json report;
  int exit_code = 0;  // 1 when an error finding exists
};

void add_pipeline_options(CLI::App& app, PipelineArgs& args);
// --no-collect, for the commands whose output is the diagnosis (check, report).
void add_no_collect_option(CLI::App& app, PipelineArgs& args);
PipelineResult run_pipeline(const GlobalOptions& global, const PipelineArgs& args);

// Diagnoses a report (collected or loaded) in place and returns the exit code.
// Findings of an earlier diagnosis in the report are replaced.
int diagnose_into(Json& report, const GlobalOptions& global);

// workflow::load_report(), and its secrets learnt by the redaction
// (render/redact.h learn_secrets_in), so every output built from it is redacted.
Json load_saved_report(const std::string& path);

// The diagnosed report `lock`, `verify` and `plan` work from: this machine's
// when `report_path` is empty, else the saved one (`-`: stdin) diagnosed anew.
Json machine_or_saved_report(const std::string& report_path, const GlobalOptions& global,
                             const PipelineArgs& args);

}  // namespace cudiag::cli
