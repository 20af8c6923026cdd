#pragma once
#include <string>
#include <vector>

#include "core/json.h"
#include "probes/probe_context.h"

namespace cudiag::probes {

// Layer 7, `frameworks`: every Python environment the user means (see
// python_env.h) and, in each, PyTorch, TensorFlow, JAX, CuPy, ONNX Runtime
// and Numba with how they were built, the nvidia-* wheels installed, and which
// copy of each CUDA library the framework's shared objects would load.
// Reads files only: no interpreter runs, nothing is imported or dlopened.
// `pythons` are the --python arguments (interpreters or environment prefixes).
Json probe_frameworks(const ProbeContext& ctx, const std::vector<std::string>& pythons);

}  // namespace cudiag::probes
