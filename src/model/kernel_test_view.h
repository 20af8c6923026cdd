#pragma once
// The kernel test (`check --deep`, report key `kernel_test`) as the rules and
// the readers need it: its status and, for each part that failed (the
// driver API, one device, one libnvrtc, one Python framework), its first
// failed step. Read the same way from a fresh run and from a saved report.
#include <string>
#include <vector>

#include "core/json.h"

namespace cudiag::model {

struct KernelTestFailure {
  std::string part;     // "driver" | "device" | "nvrtc" | "framework"
  std::string section;  // "driver", "device 0", "nvrtc /usr/lib/libnvrtc.so.12", "torch (/usr/bin/python3)"
  std::string step;     // "cuInit", "nvrtc-ptx load", "torch"
  std::string message;  // the step's message ("cuInit → CUDA_ERROR_NO_DEVICE (100): …")
  std::string fact;     // its report path ("kernel_test.driver.steps[0]")
};

struct KernelTestView {
  bool present = false;  // the report has a kernel_test key
  std::string status;    // "pass" | "fail" | "not run" | "" (unknown)
  std::string reason;    // why it did not run
  std::vector<KernelTestFailure> failures;
  std::size_t devices_passed = 0;
};

KernelTestView kernel_test_view(const Json& report);

}  // namespace cudiag::model
