// `cudiag plan --driver V | --cuda V | --torch V | --gpu NAME`: what changes if
// one layer moves, what else must move with it (from the knowledge base), and
// the order, one layer at a time. The change is overlaid on the report with
// --assume's overlay (report/assume.h) and re-diagnosed, so the findings
// before and after come from the same rules as `cudiag check`.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <set>

#include "cli/command.h"
#include "cli/report_pipeline.h"
#include "core/errors.h"
#include "kb/knowledge_base.h"
#include "render/output.h"
#include "report/assume.h"
#include "workflow/stack.h"
#include "workflow/torch_builds.h"
#include "workflow/version_spec.h"

namespace cudiag {
namespace {

struct PlanArgs {
  std::string driver, cuda, torch, gpu, report, format = "text";
  PipelineArgs pipeline;
};

Version must_version(const std::string& text, const std::string& option) {
  auto v = Version::parse(text);
  if (!v) throw InputError(fmt::format("--{} {}: not a version", option, text));
  return *v;
}

std::set<std::string> error_ids(const Json& report) {
  std::set<std::string> ids;
  for (const auto& f : report.value("findings", Json::array()))
    if (f.value("severity", "") == "error") ids.insert(f.value("id", "") + ": " + f.value("message", ""));
  return ids;
}

CommandRun setup_plan(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<PlanArgs>();
  auto* g = app.add_option_group("change", "The one layer that moves");
  g->add_option("--driver", args->driver, "A new host driver, e.g. 570.86.10");
  g->add_option("--cuda", args->cuda, "A new CUDA runtime/toolkit, e.g. 12.8");
  g->add_option("--torch", args->torch, "A new PyTorch build, e.g. 2.7.0+cu128");
  g->add_option("--gpu", args->gpu, "A new GPU, e.g. \"RTX 5090\" or sm_120");
  g->require_option(1);
  app.add_option("--report", args->report,
                 "Plan from a saved report (JSON, '-' for stdin) instead of this machine");
  app.add_option("--format", args->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  add_pipeline_options(app, args->pipeline);
  return [args, &global] {
    const auto& kb = kb::active_kb(global);
    Json before = machine_or_saved_report(args->report, global, args->pipeline);
    auto stack = workflow::read_stack(before, kb);
    auto current = [&](const std::string& key) {
      const auto* v = stack.find(key);
      return v && !v->values.empty() ? v->values : std::vector<std::string>{};
    };
    auto driver_now = current("driver");
    std::optional<Version> driver = driver_now.empty() ? std::nullopt : Version::parse(driver_now.front());
    std::vector<std::string> assumptions, also, order, notes;
    std::string change;
    std::optional<Version> needs_cuda;  // the CUDA version the change brings
    if (!args->driver.empty()) {
      auto d = must_version(args->driver, "driver");
      change = fmt::format("driver {} -> {}", driver ? driver->text() : "(none)", d.text());
      assumptions.push_back("driver=" + d.text());
      auto cuda = kb.cuda_for_driver(d);
      for (const auto& key : {"cuda_runtime", "torch.cuda"}) {
        for (const auto& rt : current(key)) {
          auto r = Version::parse(rt);
          auto req = r ? kb.driver_for_cuda(*r) : std::nullopt;
          if (!req || !req->full_min || d >= *req->full_min) continue;
          if (req->mvc_min && d >= *req->mvc_min)
            also.push_back(
                fmt::format("{} {} would run only under minor-version compatibility (driver >= {} for full "
                            "support); no PTX JIT of newer code",
                            key, rt, req->full_min->text()));
          else
            also.push_back(fmt::format("{} {} needs driver >= {}: move it to CUDA <= {} first", key, rt,
                                       req->full_min->text(), cuda ? cuda->text() : "?"));
        }
      }
      bool upgrade = !driver || d >= *driver;
      order.push_back(fmt::format("kernel_driver: install driver {} (reports CUDA {}){}", d.text(),
                                  cuda ? cuda->text() : "?",
                                  upgrade ? "; newer drivers run older runtimes, so it goes first" : ""));
      if (!upgrade && !also.empty()) std::rotate(order.begin(), order.end() - 1, order.end());
    } else {
      if (!args->cuda.empty()) {
        needs_cuda = must_version(args->cuda, "cuda");
        change = fmt::format("CUDA runtime -> {}", needs_cuda->text());
        assumptions.push_back("cuda_runtime=" + needs_cuda->text());
      } else if (!args->torch.empty()) {
        needs_cuda = workflow::torch_label_cuda(args->torch);
        if (!needs_cuda) {
          // A plain "2.5.1" is what `pip install torch==2.5.1` installs: the release's default PyPI build.
          auto def = workflow::torch_pypi_default(kb, args->torch);
          if (!def && args->torch.find('+') != std::string::npos)
            throw InputError(
                fmt::format("--torch {}: its label names no CUDA build to plan for", args->torch));
          if (!def)
            throw InputError(fmt::format(
                "--torch {}: no +cuXYZ label, and the knowledge base has no default PyPI build for it; "
                "give the build, e.g. {}+cu124",
                args->torch, args->torch.substr(0, args->torch.find('+'))));
          needs_cuda = def->cuda;
          notes.push_back(fmt::format(
              "--torch {} has no +cuXYZ label: taken as the default PyPI build (Linux x86_64), CUDA {}, from "
              "the "
              "knowledge base's framework_matrix entry torch {} ({}{}{})",
              args->torch, def->cuda.text(), def->release, def->confidence, def->sources.empty() ? "" : "; ",
              fmt::format("{}", fmt::join(def->sources, ", "))));
          if (!def->note.empty()) notes.push_back(def->note);
        }
        change = fmt::format("torch -> {} (CUDA {})", args->torch, needs_cuda->text());
      } else {
        auto matches = kb.gpus_matching(args->gpu);
        const kb::Arch* arch = kb.arch(args->gpu);
        if (!arch && !matches.empty()) arch = kb.arch_for_cc(matches.front()->cc);
        if (!arch)
          throw InputError(
              fmt::format("--gpu {}: no such GPU or architecture in the knowledge base", args->gpu));
        needs_cuda = arch->first_cuda ? arch->first_cuda : arch->first_cuda_at_most;
        change = fmt::format("GPU -> {} ({} {}, first built by CUDA {})",
                             matches.empty() ? args->gpu : matches.front()->name, arch->sm, arch->name,
                             needs_cuda ? needs_cuda->text() : "?");
        assumptions.push_back("gpu=" + args->gpu);
        for (const auto& key : {"cuda_runtime", "torch.cuda"}) {
          for (const auto& rt : current(key)) {
            auto r = Version::parse(rt);
            if (r && needs_cuda && *r < *needs_cuda)
              also.push_back(fmt::format("{} {} has no {} code: move to CUDA >= {}", key, rt, arch->sm,
                                         needs_cuda->text()));
          }
        }
      }
      auto req = needs_cuda ? kb.driver_for_cuda(*needs_cuda) : std::nullopt;
      if (req && req->full_min && (!driver || *driver < *req->full_min)) {
        also.insert(also.begin(),
                    fmt::format("driver {} must move to >= {} for CUDA {}{}",
                                driver ? driver->text() : "(none)", req->full_min->text(), needs_cuda->text(),
                                req->mvc_min ? fmt::format(" (>= {} under minor-version compatibility, with "
                                                           "its limits)",
                                                           req->mvc_min->text())
                                             : ""));
        order.push_back(
            fmt::format("kernel_driver: install a driver >= {} first (newer drivers run older runtimes)",
                        req->full_min->text()));
      }
      if (!args->cuda.empty())
        order.push_back(fmt::format("cuda_runtime: install CUDA {}", needs_cuda->text()));
      if (!args->torch.empty()) order.push_back(fmt::format("frameworks: install torch {}", args->torch));
      if (!args->gpu.empty()) {
        if (!also.empty())
          order.push_back(
              fmt::format("cuda_runtime/frameworks: move to builds with CUDA >= {}", needs_cuda->text()));
        order.push_back(
            fmt::format("install the GPU ({}) last, onto a stack that already supports it", args->gpu));
      }
    }
    Json after = before;
    if (!assumptions.empty()) apply_assumptions(after, assumptions, kb);
    diagnose_into(after, global);
    auto eb = error_ids(before), ea = error_ids(after);
    std::vector<std::string> resolved, introduced;
    for (const auto& e : eb)
      if (!ea.count(e)) resolved.push_back(e);
    for (const auto& e : ea)
      if (!eb.count(e)) introduced.push_back(e);
    if (args->format == "json") {
      Json j = {{"change", change},
                {"notes", notes},
                {"also_must_move", also},
                {"order", order},
                {"findings_resolved", resolved},
                {"findings_introduced", introduced}};
      write_json_output(j, {});
      return 0;
    }
    std::string out = fmt::format("Plan: {}\n", change);
    for (const auto& n : notes) out += "  " + n + "\n";
    out += "\nWhat else must move:\n";
    if (also.empty()) out += "  nothing: the rest of the stack stays compatible\n";
    for (const auto& a : also) out += "  - " + a + "\n";
    out += "\nOrder, one layer at a time:\n";
    for (std::size_t i = 0; i < order.size(); ++i) out += fmt::format("  {}. {}\n", i + 1, order[i]);
    if (!assumptions.empty()) {
      out += "\nDiagnosis with the change overlaid (as --assume):\n";
      if (resolved.empty() && introduced.empty()) out += "  no error finding appears or goes away\n";
      for (const auto& e : resolved) out += "  resolved: " + e + "\n";
      for (const auto& e : introduced) out += "  new:      " + e + "\n";
    }
    write_output(out, OutputKind::kText, {});
    return 0;
  };
}

const RegisterCommand kPlan{
    {"plan", "What else must move if one layer changes, and in which order", 43, setup_plan}};

}  // namespace
}  // namespace cudiag
