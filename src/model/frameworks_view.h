#pragma once
// The framework builds of the `frameworks` layer as readers compare them
// (lock, verify, diff, --require): each framework install in each Python
// environment with its version and the CUDA and cuDNN it was built for, read
// from the keys the frameworks probe writes (schema: frameworks.environments[]
// .frameworks[] {name, version, build: {cuda, cudnn}}).
#include <string>
#include <vector>

#include "core/json.h"

namespace cudiag::model {

struct FrameworkBuild {
  std::string name;         // "torch", "jax", "cupy", "tensorflow", ... ("pytorch" is "torch")
  std::string version;      // "" when unknown
  std::string cuda;         // the CUDA version it was built with; "" unknown or CPU-only
  std::string cuda_major;   // only the major is known (a JAX plugin's or CuPy's package name: "13")
  std::string cudnn;        // the cuDNN version it was built with, when the build records one
  bool cpu_only = false;    // the build says it has no GPU support (build.cpu_only)
  std::string environment;  // the Python environment's prefix
  std::string where;        // its report path: "frameworks.environments[0].frameworks[1]"
};

// Installs with a known version, in report order.
std::vector<FrameworkBuild> framework_builds(const Json& report);

}  // namespace cudiag::model
