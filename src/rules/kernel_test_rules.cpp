// Rules for the kernel_test layer (`check --deep`): a real kernel that did
// not run is an error finding naming the step that failed, so every format
// and `cudiag analyze` of the saved report say the same, and the exit code
// comes from the findings. The steps are read through the report model
// (model/kernel_test_view.h).
#include <fmt/format.h>

#include "model/kernel_test_view.h"
#include "rules/engine.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"

namespace cudiag::rules {
namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {"kernel_test.driver_step_failed", "kernel_test", "error",
     "a step of the driver API test failed (cuInit, device, primary context, the PTX JIT or SASS module "
     "load, launch, copy back, element check); one finding per part (the driver, each device), naming its "
     "first failed step and the child's message (`cuInit → CUDA_ERROR_NO_DEVICE (100)`)",
     "scenario kernel-test-cuinit-no-device"},
    {"kernel_test.nvrtc_step_failed", "kernel_test", "error",
     "a step of one libnvrtc's compile-load-run test failed, naming the step and the library",
     "scenario kernel-test-cuinit-no-device"},
    {"kernel_test.framework_failed", "kernel_test", "error",
     "a Python framework's GPU matmul failed in an interpreter, with its exception text (`AssertionError: "
     "Torch not compiled with CUDA enabled`)",
     "scenario kernel-test-cpu-only-torch"},
    {"kernel_test.failed", "kernel_test", "error",
     "the test failed without a failed step (no device reached the element check)",
     "test unit/rules/rule_cases_test.cpp"},
    {"kernel_test.not_run", "kernel_test", "info",
     "the test did not run (a machine read with `--root`); the layer's status is then `unknown`",
     "test unit/rules/rule_cases_test.cpp"},
};

constexpr const char* kDriverApiDocs = "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html";
constexpr const char* kNvrtcDocs = "https://docs.nvidia.com/cuda/nvrtc/index.html";
constexpr const char* kCompatDocs = "https://docs.nvidia.com/deploy/cuda-compatibility/";

// The failed step's message, from the child that ran it.
Evidence step_evidence(const model::KernelTestFailure& f) {
  return evidence(f.fact, Json(f.message), "kernel test child (" + f.section + ")");
}

Finding driver_failure(const model::KernelTestFailure& f) {
  auto finding = make_finding(
      "kernel_test.driver_step_failed", "kernel_test", Severity::kError,
      fmt::format("The kernel test failed at {} ({}): {}.", f.step, f.section, sentence_body(f.message)),
      "A real kernel does not run through the driver API here. Fix the first failing layer above (its "
      "findings say what to change), then run `cudiag test` again; a step that hung or crashed names a "
      "driver that is broken or mismatched.");
  finding.evidence.push_back(step_evidence(f));
  add_doc(finding, kDriverApiDocs, "CUresult");
  return finding;
}

Finding nvrtc_failure(const model::KernelTestFailure& f) {
  auto finding = make_finding(
      "kernel_test.nvrtc_step_failed", "kernel_test", Severity::kError,
      fmt::format("The kernel test's runtime compilation failed at {} ({}): {}.", f.step, f.section,
                  sentence_body(f.message)),
      "Use a libnvrtc whose CUDA release the driver supports (the libraries layer lists each copy), or fix "
      "the driver API first when it fails too.");
  finding.evidence.push_back(step_evidence(f));
  add_doc(finding, kNvrtcDocs, "NVRTC");
  return finding;
}

Finding framework_failure(const model::KernelTestFailure& f) {
  auto finding = make_finding(
      "kernel_test.framework_failed", "kernel_test", Severity::kError,
      fmt::format("The kernel test's GPU matmul with {} failed: {}.", f.section, sentence_body(f.message)),
      fmt::format(
          "Install a CUDA build of {} that the driver supports (the frameworks layer says which build "
          "is installed), or fix the first failing layer above.",
          f.step));
  finding.evidence.push_back(step_evidence(f));
  add_doc(finding, kCompatDocs, "CUDA Application Compatibility");
  return finding;
}

void kernel_test(const Json& report, const kb::KnowledgeBase&, std::vector<Finding>& out) {
  auto view = model::kernel_test_view(report);
  if (!view.present) return;
  if (view.status == "not run") {
    auto f = make_finding("kernel_test.not_run", "kernel_test", Severity::kInfo,
                          fmt::format("The kernel test did not run: {}.", sentence_body(view.reason)),
                          "Run `cudiag check --deep` on the machine itself to launch a real kernel.");
    f.evidence.push_back(evidence("kernel_test.status", Json(view.status), "check --deep"));
    add_doc(f, kDriverApiDocs, "CUresult");
    out.push_back(std::move(f));
    return;
  }
  std::size_t before = out.size();
  for (const auto& failure : view.failures) {
    if (failure.part == "driver" || failure.part == "device") {
      out.push_back(driver_failure(failure));
    } else if (failure.part == "nvrtc") {
      out.push_back(nvrtc_failure(failure));
    } else {
      out.push_back(framework_failure(failure));
    }
  }
  if (view.status == "fail" && out.size() == before) {
    // Failed without a failed step: no device finished its element check.
    auto f = make_finding("kernel_test.failed", "kernel_test", Severity::kError,
                          "The kernel test failed: no device ran the kernel and checked its result.",
                          "Run `cudiag test` to see each step; fix the first failing layer above first.");
    f.evidence.push_back(evidence("kernel_test.status", Json(view.status), "check --deep"));
    add_doc(f, kDriverApiDocs, "CUresult");
    out.push_back(std::move(f));
  }
}

const RegisterRule kKernelTest{{"kernel_test", kernel_test}};

}  // namespace
}  // namespace cudiag::rules
