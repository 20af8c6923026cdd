// Rules for the nvml layer. CUDA itself does not need NVML, but nvidia-smi,
// container runtimes and schedulers do, and its failure codes name the
// driver's state precisely (e.g. the user-space/kernel version mismatch).
#include "rules/engine.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"

namespace cudiag::rules {
namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {.id = "nvml.library_missing",
     .layer = "nvml",
     .severity = "warning",
     .when = "no `libnvidia-ml.so.1` (CUDA works, nvidia-smi and container runtimes do not)",
     .covered_by = "scenario nvml-library-missing",
     .message =
         "No libnvidia-ml.so.1 is on this machine, so nvidia-smi, container runtimes and monitoring cannot query the GPU.",
     .remediation =
         "Install the driver's NVML library (Debian/Ubuntu: libnvidia-ml1 or libnvidia-compute-<branch>); in a container, start it with the NVIDIA runtime and NVIDIA_DRIVER_CAPABILITIES including utility."},
    {.id = "nvml.load_failed",
     .layer = "nvml",
     .severity = "error",
     .when = "loading it hung, crashed or failed",
     .covered_by = "test unit/rules/rule_cases_test.cpp",
     .message = "Loading libnvidia-ml failed: {error}.",
     .remediation =
         "Reinstall the driver's NVML library; a library that hangs or crashes on load usually means a broken or mixed driver installation."},
    {.id = "nvml.driver_library_mismatch",
     .layer = "nvml",
     .severity = "error",
     .when = "`nvmlInit_v2` → `NVML_ERROR_LIB_RM_VERSION_MISMATCH`",
     .covered_by = "scenario driver-library-version-mismatch",
     .message =
         "nvmlInit_v2 → NVML_ERROR_LIB_RM_VERSION_MISMATCH (18): the user-space driver libraries and the loaded kernel module are different releases (\"Failed to initialize NVML: Driver/library version mismatch\").",
     .remediation =
         "Reboot so the kernel module of the installed driver loads (the usual cause is a driver upgrade without a reboot), or reinstall the driver so libraries and module are one release."},
    {.id = "nvml.init_failed",
     .layer = "nvml",
     .severity = "error",
     .when = "any other `nvmlInit_v2` failure, with its meaning",
     .covered_by = "scenario debian-r535-userspace-cuda13-no-gpu",
     .message = "nvmlInit_v2 → {call}{meaning}.",
     .remediation = "{remedy}"},
};

constexpr const char* kNvmlApi =
    "https://docs.nvidia.com/deploy/nvml-api/group__nvmlInitializationAndCleanup.html";
constexpr long kNvmlLibRmVersionMismatch = 18;

void add_error_docs(Finding& f, const kb::KnowledgeBase& kb, std::string_view api, long code) {
  if (const auto* e = kb.error(api, code)) add_docs(f, *e);
}

void nvml(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  if (!present(report, "nvml")) return;
  const Json& candidates = fact_at(report, "nvml.candidates");
  if (candidates.is_array() && candidates.empty()) {
    auto f = finding("nvml.library_missing");
    f.evidence.push_back(evidence_from(report, "nvml.picked"));
    add_doc(f, kNvmlApi, "Initialization and Cleanup");
    out.push_back(std::move(f));
    return;
  }
  auto load_error = fact_error(report, "nvml.load");
  if (!load_error.empty()) {
    auto f = finding("nvml.load_failed", {{"error", load_error}});
    f.evidence.push_back(evidence_from(report, "nvml.load"));
    out.push_back(std::move(f));
    return;
  }
  auto init = failed_call(report, "nvml.nvmlInit");
  if (!init) return;
  if (init->code == kNvmlLibRmVersionMismatch) {
    auto f = finding("nvml.driver_library_mismatch");
    f.evidence.push_back(evidence_from(report, "nvml.nvmlInit"));
    f.evidence.push_back(evidence_from(report, "nvml.library_version"));
    f.evidence.push_back(evidence_from(report, "kernel_driver.version"));
    add_error_docs(f, kb, "nvml", init->code);
    out.push_back(std::move(f));
    return;
  }
  const auto* e = kb.error("nvml", init->code);
  auto f = finding(
      "nvml.init_failed",
      {{"call", init->describe()},
       {"meaning", e ? ": " + sentence_body(e->meaning) : ""},
       {"remedy",
        init->code == 9
            ? "Load the NVIDIA kernel module (see the kernel_driver layer)."
            : "Check `dmesg | grep -i nvrm` and the kernel_driver layer; reinstall the driver if it persists."}});
  f.evidence.push_back(evidence_from(report, "nvml.nvmlInit"));
  add_error_docs(f, kb, "nvml", init->code);
  out.push_back(std::move(f));
}

const RegisterRule kNvml{{"nvml", nvml}};

}  // namespace
}  // namespace cudiag::rules
