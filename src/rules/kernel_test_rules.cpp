// Rules for the kernel_test layer (`check --deep`): a real kernel that did
// not run is an error finding naming the step that failed, so every format
// and `cudiag analyze` of the saved report say the same, and the exit code
// comes from the findings. The steps are read through the report model
// (model/kernel_test_view.h).
#include "model/kernel_test_view.h"
#include "rules/engine.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"

namespace cudiag::rules {
namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {.id = "kernel_test.driver_step_failed",
     .layer = "kernel_test",
     .severity = "error",
     .when = "a step of the driver API test failed (cuInit, device, primary context, the PTX JIT or SASS "
             "module load, launch, copy back, element check); one finding per part (the driver, each "
             "device), naming its first failed step and the child's message (`cuInit → CUDA_ERROR_NO_DEVICE "
             "(100)`)",
     .covered_by = "scenario kernel-test-cuinit-no-device",
     .message = "The kernel test failed at {step} ({section}): {error}.",
     .remediation =
         "A real kernel does not run through the driver API here. Fix the first failing layer above (its findings say what to change), then run `cudiag test` again; a step that hung or crashed names a driver that is broken or mismatched."},
    {.id = "kernel_test.nvrtc_step_failed",
     .layer = "kernel_test",
     .severity = "error",
     .when = "a step of one libnvrtc's compile-load-run test failed, naming the step and the library",
     .covered_by = "scenario kernel-test-cuinit-no-device",
     .message = "The kernel test's runtime compilation failed at {step} ({section}): {error}.",
     .remediation =
         "Use a libnvrtc whose CUDA release the driver supports (the libraries layer lists each copy), or fix the driver API first when it fails too."},
    {.id = "kernel_test.framework_failed",
     .layer = "kernel_test",
     .severity = "error",
     .when = "a Python framework's GPU matmul failed in an interpreter, with its exception text "
             "(`AssertionError: Torch not compiled with CUDA enabled`)",
     .covered_by = "scenario kernel-test-cpu-only-torch",
     .message = "The kernel test's GPU matmul with {section} failed: {error}.",
     .remediation =
         "Install a CUDA build of {step} that the driver supports (the frameworks layer says which build is installed), or fix the first failing layer above."},
    {.id = "kernel_test.failed",
     .layer = "kernel_test",
     .severity = "error",
     .when = "the test failed without a failed step (no device reached the element check)",
     .covered_by = "test unit/rules/rule_cases_test.cpp",
     .message = "The kernel test failed: no device ran the kernel and checked its result.",
     .remediation = "Run `cudiag test` to see each step; fix the first failing layer above first."},
    {.id = "kernel_test.not_run",
     .layer = "kernel_test",
     .severity = "info",
     .when = "the test did not run (a machine read with `--root`); the layer's status is then `unknown`",
     .covered_by = "test unit/rules/rule_cases_test.cpp",
     .message = "The kernel test did not run: {reason}.",
     .remediation = "Run `cudiag check --deep` on the machine itself to launch a real kernel."},
};

constexpr const char* kDriverApiDocs = "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html";
constexpr const char* kNvrtcDocs = "https://docs.nvidia.com/cuda/nvrtc/index.html";
constexpr const char* kCompatDocs = "https://docs.nvidia.com/deploy/cuda-compatibility/";

// The failed step's message, from the child that ran it.
Evidence step_evidence(const model::KernelTestFailure& f) {
  return evidence(f.fact, Json(f.message), "kernel test child (" + f.section + ")");
}

Finding driver_failure(const model::KernelTestFailure& f) {
  auto result = finding("kernel_test.driver_step_failed",
                        {{"step", f.step}, {"section", f.section}, {"error", sentence_body(f.message)}});
  result.evidence.push_back(step_evidence(f));
  add_doc(result, kDriverApiDocs, "CUresult");
  return result;
}

Finding nvrtc_failure(const model::KernelTestFailure& f) {
  auto result = finding("kernel_test.nvrtc_step_failed",
                        {{"step", f.step}, {"section", f.section}, {"error", sentence_body(f.message)}});
  result.evidence.push_back(step_evidence(f));
  add_doc(result, kNvrtcDocs, "NVRTC");
  return result;
}

Finding framework_failure(const model::KernelTestFailure& f) {
  auto result = finding("kernel_test.framework_failed",
                        {{"section", f.section}, {"error", sentence_body(f.message)}, {"step", f.step}});
  result.evidence.push_back(step_evidence(f));
  add_doc(result, kCompatDocs, "CUDA Application Compatibility");
  return result;
}

void kernel_test(const Json& report, const kb::KnowledgeBase&, std::vector<Finding>& out) {
  auto view = model::kernel_test_view(report);
  if (!view.present) return;
  if (view.status == "not run") {
    auto f = finding("kernel_test.not_run", {{"reason", sentence_body(view.reason)}});
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
    auto f = finding("kernel_test.failed");
    f.evidence.push_back(evidence("kernel_test.status", Json(view.status), "check --deep"));
    add_doc(f, kDriverApiDocs, "CUresult");
    out.push_back(std::move(f));
  }
}

const RegisterRule kKernelTest{{"kernel_test", kernel_test}};

}  // namespace
}  // namespace cudiag::rules
