#include "workflow/plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>

#include "core/errors.h"
#include "kb/knowledge_base.h"
#include "model/host_driver.h"
#include "rules/runtime_compat.h"
#include "workflow/stack.h"
#include "workflow/torch_builds.h"

namespace cudiag::workflow {
namespace {

using rules::RuntimeVerdict;

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

std::string text_or(const std::optional<Version>& v, const char* none) { return v ? v->text() : none; }

// The installed CUDA runtimes and torch builds, each against the new driver `d`.
void plan_driver(const kb::KnowledgeBase& kb, const Stack& stack, const model::HostDriver& now,
                 const PlanRequest& request, Plan& plan) {
  auto d = must_version(request.driver, "driver");
  plan.change = fmt::format("driver {} -> {}", text_or(now.version, "(none)"), d.text());
  plan.assumptions.push_back("driver=" + d.text());
  model::HostDriver next;
  next.version = d;
  next.cuda = kb.cuda_for_driver(d);
  for (const auto& key : {"cuda_runtime", "torch.cuda"}) {
    const auto* v = stack.find(key);
    if (!v) continue;
    for (const auto& rt : v->values) {
      auto r = Version::parse(rt);
      if (!r) continue;
      auto c = rules::check_runtime_against_driver(kb, *r, next, Json::object(), "");
      if (!c.requirement || !c.requirement->full_min || c.verdict == RuntimeVerdict::kCompatible ||
          c.verdict == RuntimeVerdict::kUnknown)
        continue;
      if (c.verdict == RuntimeVerdict::kMinorVersionCompat)
        plan.also_must_move.push_back(
            fmt::format("{} {} would run only under minor-version compatibility (driver >= {} for full "
                        "support); no PTX JIT of newer code",
                        key, rt, c.requirement->full_min->text()));
      else
        plan.also_must_move.push_back(fmt::format("{} {} needs driver >= {}: move it to CUDA <= {} first",
                                                  key, rt, c.requirement->full_min->text(),
                                                  text_or(next.cuda, "?")));
    }
  }
  bool upgrade = !now.version || d >= *now.version;
  plan.order.push_back(fmt::format("kernel_driver: install driver {} (reports CUDA {}){}", d.text(),
                                   text_or(next.cuda, "?"),
                                   upgrade ? "; newer drivers run older runtimes, so it goes first" : ""));
  // A downgrade goes last: what must move to an older CUDA moves before the driver does.
  if (!upgrade && !plan.also_must_move.empty())
    std::rotate(plan.order.begin(), plan.order.end() - 1, plan.order.end());
}

// The CUDA version a torch build brings: its +cuXYZ label, or a plain release's default PyPI build.
Version torch_cuda(const kb::KnowledgeBase& kb, const std::string& torch, Plan& plan) {
  if (auto label = torch_label_cuda(torch)) return *label;
  auto def = torch_pypi_default(kb, torch);
  if (!def && torch.find('+') != std::string::npos)
    throw InputError(fmt::format("--torch {}: its label names no CUDA build to plan for", torch));
  if (!def)
    throw InputError(
        fmt::format("--torch {}: no +cuXYZ label, and the knowledge base has no default PyPI build for it; "
                    "give the build, e.g. {}+cu124",
                    torch, torch.substr(0, torch.find('+'))));
  plan.notes.push_back(fmt::format(
      "--torch {} has no +cuXYZ label: taken as the default PyPI build (Linux x86_64), CUDA {}, from the "
      "knowledge base's framework_matrix entry torch {} ({}{}{})",
      torch, def->cuda.text(), def->release, def->confidence, def->sources.empty() ? "" : "; ",
      fmt::format("{}", fmt::join(def->sources, ", "))));
  if (!def->note.empty()) plan.notes.push_back(def->note);
  return def->cuda;
}

// A change that brings a CUDA version (a runtime, a torch build, a GPU's first CUDA): the driver it needs.
void plan_cuda(const Json& report, const kb::KnowledgeBase& kb, const Stack& stack,
               const model::HostDriver& now, const PlanRequest& request, Plan& plan) {
  std::optional<Version> needs_cuda;
  if (!request.cuda.empty()) {
    needs_cuda = must_version(request.cuda, "cuda");
    plan.change = fmt::format("CUDA runtime -> {}", needs_cuda->text());
    plan.assumptions.push_back("cuda_runtime=" + needs_cuda->text());
  } else if (!request.torch.empty()) {
    needs_cuda = torch_cuda(kb, request.torch, plan);
    plan.change = fmt::format("torch -> {} (CUDA {})", request.torch, needs_cuda->text());
  } else {
    auto matches = kb.gpus_matching(request.gpu);
    const kb::Arch* arch = kb.arch(request.gpu);
    if (!arch && !matches.empty()) arch = kb.arch_for_cc(matches.front()->cc);
    if (!arch)
      throw InputError(
          fmt::format("--gpu {}: no such GPU or architecture in the knowledge base", request.gpu));
    needs_cuda = arch->first_cuda ? arch->first_cuda : arch->first_cuda_at_most;
    plan.change = fmt::format("GPU -> {} ({} {}, first built by CUDA {})",
                              matches.empty() ? request.gpu : matches.front()->name, arch->sm, arch->name,
                              text_or(needs_cuda, "?"));
    plan.assumptions.push_back("gpu=" + request.gpu);
    for (const auto& key : {"cuda_runtime", "torch.cuda"}) {
      const auto* v = stack.find(key);
      if (!v) continue;
      for (const auto& rt : v->values) {
        auto r = Version::parse(rt);
        if (r && needs_cuda && *r < *needs_cuda)
          plan.also_must_move.push_back(
              fmt::format("{} {} has no {} code: move to CUDA >= {}", key, rt, arch->sm, needs_cuda->text()));
      }
    }
  }
  if (needs_cuda) {
    // Whether the CUDA version runs on the installed driver, as the rules decide it; anything short of full
    // support (minor-version compatibility has its limits) means the driver moves first.
    auto c = rules::check_runtime_against_driver(kb, *needs_cuda, now, report, "");
    const auto& req = c.requirement;
    if (req && req->full_min && c.verdict != RuntimeVerdict::kCompatible) {
      plan.also_must_move.insert(
          plan.also_must_move.begin(),
          fmt::format("driver {} must move to >= {} for CUDA {}{}", text_or(now.version, "(none)"),
                      req->full_min->text(), needs_cuda->text(),
                      req->mvc_min
                          ? fmt::format(" (>= {} under minor-version compatibility, with its limits)",
                                        req->mvc_min->text())
                          : ""));
      plan.order.push_back(
          fmt::format("kernel_driver: install a driver >= {} first (newer drivers run older runtimes)",
                      req->full_min->text()));
    }
  }
  if (!request.cuda.empty())
    plan.order.push_back(fmt::format("cuda_runtime: install CUDA {}", needs_cuda->text()));
  if (!request.torch.empty())
    plan.order.push_back(fmt::format("frameworks: install torch {}", request.torch));
  if (!request.gpu.empty()) {
    if (!plan.also_must_move.empty())
      plan.order.push_back(
          fmt::format("cuda_runtime/frameworks: move to builds with CUDA >= {}", text_or(needs_cuda, "?")));
    plan.order.push_back(
        fmt::format("install the GPU ({}) last, onto a stack that already supports it", request.gpu));
  }
}

}  // namespace

Plan plan_change(const Json& report, const kb::KnowledgeBase& kb, const PlanRequest& request) {
  Plan plan;
  auto stack = read_stack(report, kb);
  auto now = model::derive_host_driver(report, &kb);
  if (!request.driver.empty())
    plan_driver(kb, stack, now, request, plan);
  else
    plan_cuda(report, kb, stack, now, request, plan);
  return plan;
}

FindingChanges error_changes(const Json& before, const Json& after) {
  auto eb = error_ids(before), ea = error_ids(after);
  FindingChanges c;
  for (const auto& e : eb)
    if (!ea.count(e)) c.resolved.push_back(e);
  for (const auto& e : ea)
    if (!eb.count(e)) c.introduced.push_back(e);
  return c;
}

Json plan_json(const Plan& plan, const FindingChanges& changes) {
  return {{"change", plan.change},
          {"notes", plan.notes},
          {"also_must_move", plan.also_must_move},
          {"order", plan.order},
          {"findings_resolved", changes.resolved},
          {"findings_introduced", changes.introduced}};
}

}  // namespace cudiag::workflow
