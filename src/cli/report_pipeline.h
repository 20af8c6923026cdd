#pragma once
// The one pipeline: collect -> kernel test (check --deep) -> assumptions ->
// requirements (check --require) -> diagnose, shared by `check`, `report` and
// the commands built on them; the exit code comes from the findings alone.
// Renderers are applied by each command.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/command.h"
#include "core/json.h"
#include "workflow/requirements.h"

namespace cudiag {

struct PipelineArgs {
  bool no_library_calls = false;     // versions of CUDA libraries from file names only (faster)
  std::string image_digest;          // recorded in the report's `container` key
  std::vector<std::string> pythons;  // --python: more interpreters/environments for the frameworks layer
  bool no_frameworks = false;        // skip the frameworks layer
  bool binaries = false;             // --binaries: the `binaries` key (fatbin architectures of each library)
  bool no_cache = false;             // ask every library for its version again
  bool confirm_versions = false;     // ask each library's own function even where its wheel says the version
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

}  // namespace cudiag
