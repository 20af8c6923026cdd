#pragma once
// `cudiag check --deep`: the kernel test run after the report, with the
// libraries the report found, its result in the report's `kernel_test` key.
#include <string>

#include "core/json.h"

namespace cudiag {
struct GlobalOptions;
}
namespace cudiag::machine {
struct Machine;
}

namespace cudiag::kernel_test {

// Runs the test for the report's libcuda and libnvrtc copies and python3 on
// PATH, on the machine the report was collected from (its root, environment
// and child timeout); stores the section in report["kernel_test"]; returns
// its exit code (the diagnosis's kernel_test.* findings say the same).
// `global` chooses the knowledge base that names a failed step's error.
int add_kernel_test(Json& report, const machine::Machine& machine, const GlobalOptions& global);

}  // namespace cudiag::kernel_test
