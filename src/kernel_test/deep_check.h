#pragma once
// `cudiag check --deep`: the kernel test run after the report, with the
// libraries the report found, its result in the report's `kernel_test` key.
#include <string>

#include "core/json.h"

namespace cudiag {
struct GlobalOptions;
}

namespace cudiag::kernel_test {

// Runs the test for the report's libcuda and libnvrtc copies and python3 on
// PATH; stores the section in report["kernel_test"]; returns its exit code.
int add_kernel_test(Json& report, const GlobalOptions& global);

// The text form of report["kernel_test"], or "" when the report has none.
std::string kernel_test_text(const Json& report, bool color);

}  // namespace cudiag::kernel_test
