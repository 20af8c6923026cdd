#include "cli/report_pipeline.h"

#include <chrono>

#include "core/answer_cache.h"
#include "core/fsroot.h"
#include "kb/knowledge_base.h"
#include "kernel_test/deep_check.h"
#include "machine/machine.h"
#include "probes/container_probe.h"
#include "render/redact.h"
#include "report/assume.h"
#include "report/collect.h"
#include "rules/engine.h"
#include "workflow/report_input.h"
#include "workflow/stack.h"

namespace cudiag::cli {

void add_pipeline_options(CLI::App& app, PipelineArgs& args) {
  app.add_flag_callback(
      "--no-library-calls", [&args] { args.collect.library_calls = false; },
      "Read CUDA library versions from file names instead of calling each library (faster)");
  app.add_option("--image-digest", args.collect.image_digest,
                 "The container image's digest (sha256:..., or NAME@sha256:...), recorded in the report's "
                 "`container` key")
      ->check([](const std::string& d) {
        auto why = probes::image_digest_error(d);
        return why.empty() ? why : d + ": " + why;
      });
  app.add_option("--python", args.collect.pythons,
                 "A Python interpreter or environment directory whose frameworks to inspect (repeatable; "
                 "read, never run)");
  app.add_flag_callback(
      "--no-frameworks", [&args] { args.collect.frameworks = false; },
      "Skip the frameworks layer (Python environments)");
  app.add_flag("--binaries", args.collect.binaries,
               "Also read which GPU architectures each CUDA library carries kernels for (fatbin headers; "
               "~0.15 s; check --deep implies it)");
  app.add_flag(
      "--no-cache", args.no_cache,
      "Call every CUDA library for its version again instead of reusing the answer remembered for the "
      "unchanged file (cache: $CUDIAG_CACHE_DIR, else ~/.cache/cudiag)");
  app.add_flag("--confirm-versions", args.collect.confirm_library_versions,
               "Ask each CUDA library's own version function even where the NVIDIA wheel that installed "
               "the file (its dist-info RECORD) already says the version (check --deep implies it)");
  app.add_option(
         "--assume", args.assumptions,
         "Overlay a hypothetical fact KEY=VALUE (repeatable): driver=535.104.05, gpu=sm_90 or gpu=\"RTX "
         "4090\", "
         "cuda_runtime=12.8, cudnn=9.1.0, compat=580.65.06, container=docker, env.CUDA_VISIBLE_DEVICES=0, "
         "torch=2.1.0+cu121, kernel_module=not_loaded, nvcc=11.8, os=windows, wsl=2, nvidia_runtime=no … "
         "(docs/assume.md)")
      ->allow_extra_args(
          false);  // one KEY=VALUE per --assume, so `explain --assume k=v "MESSAGE"` keeps its message
}

void add_no_collect_option(CLI::App& app, PipelineArgs& args) {
  app.add_flag("--no-collect", args.no_collect, "Collect nothing: diagnose only what --assume says");
}

int diagnose_into(Json& report, const GlobalOptions& global) {
  const auto& kb = kb::active_kb(global);
  auto diagnosis = rules::diagnose(report, kb);
  rules::attach_diagnosis(report, diagnosis);
  for (const auto& f : diagnosis.findings) {
    if (f.severity == rules::Severity::kError) return 1;  // kExitErrorFinding
  }
  return 0;
}

PipelineResult run_pipeline(const GlobalOptions& global, const PipelineArgs& args) {
  // A --kb directory is checked before anything starts (a bad one is exit 2);
  // the built-in knowledge base is parsed while the child probes run.
  if (!global.kb_dir.empty()) kb::active_kb(global);
  CollectOptions options = args.collect;
  options.root = global.root;
  options.child_timeout = std::chrono::milliseconds(static_cast<long>(global.timeout_s * 1000));
  options.error_name = [&global](std::string_view api, long code) -> std::string {
    const auto* e = kb::active_kb(global).error(api, code);
    return e ? e->name : "";
  };
  options.while_children_run = [&global] { kb::active_kb(global); };
  // The one machine of this command: the collection and the kernel test read the same root and environment.
  auto machine = machine::Machine::open(std::move(options));
  // A captured machine under --root is a test tree; its answers are not the user's.
  if (!args.no_cache && machine.root.is_real_root())
    machine.options.answer_cache_dir = AnswerCache::default_dir();
  PipelineResult result;
  result.report = args.no_collect ? report::new_report() : report::collect_report(machine);
  if (args.no_collect) result.report["collected"] = false;
  // The kernel test runs with the libraries the collection found, before any
  // --assume overlay (which describes another machine, not the one under test).
  if (args.deep) kernel_test::add_kernel_test(result.report, machine, global);
  report::apply_assumptions(result.report, args.assumptions, kb::active_kb(global));
  if (!args.requirements.empty()) {
    auto stack = workflow::read_stack(result.report, kb::active_kb(global));
    result.report["requirements"] =
        workflow::requirements_to_json(workflow::evaluate_all(args.requirements, stack));
  }
  result.exit_code = diagnose_into(result.report, global);
  // Whatever the command prints from it, in whatever pieces, is redacted (render/output.h).
  render::learn_secrets_in(result.report);
  return result;
}

Json load_saved_report(const std::string& path) {
  Json report = workflow::load_report(path);
  render::learn_secrets_in(report);
  return report;
}

Json machine_or_saved_report(const std::string& report_path, const GlobalOptions& global,
                             const PipelineArgs& args) {
  if (report_path.empty()) return run_pipeline(global, args).report;
  Json report = load_saved_report(report_path);
  diagnose_into(report, global);
  return report;
}

}  // namespace cudiag::cli
