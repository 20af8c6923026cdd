// Rules for the nvml layer. CUDA itself does not need NVML, but nvidia-smi,
// container runtimes and schedulers do, and its failure codes name the
// driver's state precisely (e.g. the user-space/kernel version mismatch).
#include <fmt/format.h>

#include "rules/engine.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"

namespace cudiag::rules {
namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {"nvml.library_missing", "nvml", "warning",
     "no `libnvidia-ml.so.1` (CUDA works, nvidia-smi and container runtimes do not)",
     "scenario nvml-library-missing"},
    {"nvml.load_failed", "nvml", "error", "loading it hung, crashed or failed",
     "test unit/rules/rule_cases_test.cpp"},
    {"nvml.driver_library_mismatch", "nvml", "error", "`nvmlInit_v2` → `NVML_ERROR_LIB_RM_VERSION_MISMATCH`",
     "scenario driver-library-version-mismatch"},
    {"nvml.init_failed", "nvml", "error", "any other `nvmlInit_v2` failure, with its meaning",
     "scenario debian-r535-userspace-cuda13-no-gpu"},
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
    auto f = make_finding(
        "nvml.library_missing", "nvml", Severity::kWarning,
        "No libnvidia-ml.so.1 is on this machine, so nvidia-smi, container runtimes and monitoring cannot "
        "query the GPU.",
        "Install the driver's NVML library (Debian/Ubuntu: libnvidia-ml1 or libnvidia-compute-<branch>); in "
        "a "
        "container, start it with the NVIDIA runtime and NVIDIA_DRIVER_CAPABILITIES including utility.");
    f.evidence.push_back(evidence_from(report, "nvml.picked"));
    add_doc(f, kNvmlApi, "Initialization and Cleanup");
    out.push_back(std::move(f));
    return;
  }
  auto load_error = fact_error(report, "nvml.load");
  if (!load_error.empty()) {
    auto f = make_finding("nvml.load_failed", "nvml", Severity::kError,
                          fmt::format("Loading libnvidia-ml failed: {}.", load_error),
                          "Reinstall the driver's NVML library; a library that hangs or crashes on load "
                          "usually means a broken or "
                          "mixed driver installation.");
    f.evidence.push_back(evidence_from(report, "nvml.load"));
    out.push_back(std::move(f));
    return;
  }
  auto init = failed_call(report, "nvml.nvmlInit");
  if (!init) return;
  if (init->code == kNvmlLibRmVersionMismatch) {
    auto f =
        make_finding("nvml.driver_library_mismatch", "nvml", Severity::kError,
                     "nvmlInit_v2 → NVML_ERROR_LIB_RM_VERSION_MISMATCH (18): the user-space driver libraries "
                     "and the loaded kernel module are "
                     "different releases (\"Failed to initialize NVML: Driver/library version mismatch\").",
                     "Reboot so the kernel module of the installed driver loads (the usual cause is a driver "
                     "upgrade without a reboot), or "
                     "reinstall the driver so libraries and module are one release.");
    f.evidence.push_back(evidence_from(report, "nvml.nvmlInit"));
    f.evidence.push_back(evidence_from(report, "nvml.library_version"));
    f.evidence.push_back(evidence_from(report, "kernel_driver.version"));
    add_error_docs(f, kb, "nvml", init->code);
    out.push_back(std::move(f));
    return;
  }
  const auto* e = kb.error("nvml", init->code);
  auto f = make_finding(
      "nvml.init_failed", "nvml", Severity::kError,
      fmt::format("nvmlInit_v2 → {}{}.", init->describe(), e ? ": " + sentence_body(e->meaning) : ""),
      init->code == 9
          ? "Load the NVIDIA kernel module (see the kernel_driver layer)."
          : "Check `dmesg | grep -i nvrm` and the kernel_driver layer; reinstall the driver if it persists.");
  f.evidence.push_back(evidence_from(report, "nvml.nvmlInit"));
  add_error_docs(f, kb, "nvml", init->code);
  out.push_back(std::move(f));
}

const RegisterRule kNvml{{"nvml", nvml}};

}  // namespace
}  // namespace cudiag::rules
