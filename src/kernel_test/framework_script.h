#pragma once
// The Python program `cudiag test` runs in each interpreter, once per
// framework, each time in its own process: `python -c SCRIPT FRAMEWORK`. It
// prints one JSON object: {"installed": false} when the framework's module
// cannot be found (cheap: importlib.util.find_spec, no import), else the
// framework's version, its smallest real GPU operation (a matmul on the GPU
// compared with the same matmul on the CPU) and, on failure, the exception
// text verbatim.
#include <string>
#include <vector>

namespace cudiag::kernel_test {

// torch, jax, cupy, tensorflow: the frameworks tested, in output order.
const std::vector<std::string>& framework_names();

const std::string& framework_script();

}  // namespace cudiag::kernel_test
