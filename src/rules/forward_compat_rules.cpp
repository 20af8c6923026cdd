// Forward compatibility (a cuda-compat libcuda from …/compat/ in use): only
// on data-center GPUs (else cuInit → 804), only over a host driver branch the
// compat library lists (else 803), and only when it is newer than the host
// driver. Facts from the forward_compat table.
#include <fmt/format.h>

#include "rules/engine.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"

namespace cudiag::rules {
namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {.id = "driver_api.forward_compat_unsupported_gpu",
     .layer = "driver_api",
     .severity = "error",
     .when = "a cuda-compat libcuda in use with a GPU that is not a data-center GPU, or `cuInit` → 804",
     .covered_by = "scenario forward-compat-on-geforce-804",
     .message =
         "The forward-compatibility libcuda {compat} ({picked}) is in use, but {gpu} is not a data-center GPU; forward compatibility is refused (cuInit → CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804).",
     .remediation =
         "Take the compat directory off the loader path (LD_LIBRARY_PATH, /etc/ld.so.conf.d/) so the host driver's libcuda loads, and upgrade the host driver instead; or hide the unsupported GPU with CUDA_VISIBLE_DEVICES."},
    {.id = "driver_api.forward_compat_driver_mismatch",
     .layer = "driver_api",
     .severity = "error",
     .when = "the compat libcuda does not list the host's branch, is not newer than the host driver, or "
             "`cuInit` → 803",
     .covered_by = "scenario forward-compat-host-branch-not-listed-803",
     .message =
         "The forward-compatibility libcuda {compat} ({picked}) cannot run over this kernel driver: {why}.",
     .remediation = "{remedy}"},
    {.id = "driver_api.forward_compat_in_use",
     .layer = "driver_api",
     .severity = "info",
     .when = "forward compatibility in use and valid",
     .covered_by = "scenario forward-compat-on-h100-works",
     .message =
         "The forward-compatibility libcuda {compat} ({picked}) runs over kernel driver {driver}: CUDA up to {cuda} is available.",
     .remediation =
         "Nothing to change; keep the compat package's version in step with the CUDA runtime you ship."},
};

constexpr long kCompatNotSupportedOnDevice = 804;
constexpr long kSystemDriverMismatch = 803;

const kb::CompatRule* compat_rule(const kb::KnowledgeBase& kb, std::string_view id) {
  for (const auto& r : kb.forward_compat().rules) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

void cite(Finding& f, const kb::KnowledgeBase& kb, std::string_view rule_id) {
  if (const auto* r = compat_rule(kb, rule_id)) add_docs(f, *r);
}

void forward_compat(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  bool in_use = bool_at(report, "driver_api.forward_compat_package").value_or(false);
  auto init = failed_call(report, "driver_api.cuInit");
  long code = init ? init->code : 0;
  if (!in_use && code != kCompatNotSupportedOnDevice) return;
  auto compat = version_at(report, "driver_api.library_version");
  auto kmod = version_at(report, "kernel_driver.version");
  std::string compat_text = compat ? compat->text() : "of unknown release";
  std::string picked = string_at(report, "driver_api.picked").value_or("a …/compat/ directory");

  // 804: the GPU is not one forward compatibility supports.
  std::vector<GpuView> unsupported;
  for (const auto& g : gpus(report, kb)) {
    if (!g.segment.empty() && g.segment.find("datacenter") == std::string::npos) unsupported.push_back(g);
  }
  if (code == kCompatNotSupportedOnDevice || !unsupported.empty()) {
    std::string which = unsupported.empty() ? "the visible GPU" : unsupported.front().label;
    auto f = finding("driver_api.forward_compat_unsupported_gpu",
                     {{"compat", compat_text}, {"picked", picked}, {"gpu", which}});
    f.evidence.push_back(evidence_from(report, "driver_api.forward_compat_package"));
    if (init) f.evidence.push_back(evidence_from(report, "driver_api.cuInit"));
    for (const auto& g : unsupported)
      f.evidence.push_back(evidence(g.fact, g.label + " (" + g.segment + ")", g.source));
    cite(f, kb, "gpu-class");
    out.push_back(std::move(f));
    return;
  }
  // 803: the compat library does not list the host's branch, or is not newer.
  const kb::CompatRelease* release = compat ? kb.forward_compat().release_for(*compat) : nullptr;
  bool branch_unlisted = release && kmod && !release->supports_host_branch(branch_of(*kmod));
  bool not_newer = compat && kmod && !(*compat > *kmod);
  if (code == kSystemDriverMismatch || branch_unlisted || not_newer) {
    std::string why;
    if (not_newer) {
      why = fmt::format("it is not newer than the host driver {}", kmod->text());
    } else if (branch_unlisted) {
      std::string list;
      for (auto b : release->host_branches) list += (list.empty() ? "R" : ", R") + std::to_string(b);
      why = fmt::format("it supports host drivers of branches {} only, and the host runs {}", list,
                        kmod->text());
    } else {
      why = "cuInit rejected the combination (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 803)";
    }
    auto f = finding(
        "driver_api.forward_compat_driver_mismatch",
        {{"compat", compat_text},
         {"picked", picked},
         {"why", why},
         {"remedy",
          not_newer
              ? "Remove the compat directory from the loader path: the host driver is already new enough."
              : "Use a host driver of a branch the compat package lists (an LTS or production branch), or a cuda-compat package that lists the host's branch."}});
    f.evidence.push_back(evidence_from(report, "driver_api.library_version"));
    f.evidence.push_back(evidence_from(report, "kernel_driver.version"));
    if (init) f.evidence.push_back(evidence_from(report, "driver_api.cuInit"));
    if (release) add_docs(f, *release);
    cite(f, kb, "host-branch");
    out.push_back(std::move(f));
    return;
  }
  auto f = finding("driver_api.forward_compat_in_use",
                   {{"compat", compat_text},
                    {"picked", picked},
                    {"driver", kmod ? kmod->text() : "of unknown release"},
                    {"cuda", release ? release->cuda.text()
                                     : string_at(report, "driver_api.cuda_driver_version").value_or("?")}});
  // The package fact can be absent (a compat libcuda known only from --assume
  // compat=...); the versions it is judged on are always evidence.
  f.evidence.push_back(evidence_from(report, "driver_api.forward_compat_package"));
  f.evidence.push_back(evidence_from(report, "driver_api.library_version"));
  f.evidence.push_back(evidence_from(report, "kernel_driver.version"));
  cite(f, kb, "loader-path");
  out.push_back(std::move(f));
}

const RegisterRule kForwardCompat{{"driver_api.forward_compat", forward_compat}};

}  // namespace
}  // namespace cudiag::rules
