#pragma once
// Every libcudart the cuda_runtime layer found, with its version and what it
// needs of the driver (the knowledge base's minimum driver for that CUDA
// release, and the floor under minor-version compatibility). Whether the
// host driver meets it is the rules' decision (rules/runtime_compat.h).
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/version.h"

namespace cudiag::kb {
class KnowledgeBase;
}

namespace cudiag::model {

struct CudaRuntimeView {
  std::string fact;  // "cuda_runtime.runtimes[0]"
  std::string path;
  std::string real_path;
  std::optional<Version> version;           // cudaRuntimeGetVersion, else a file name with major.minor
  std::string version_fact;                 // the path it came from; "" unknown
  std::optional<Version> needs_driver;      // driver >= this runs it by backward compatibility
  std::optional<Version> needs_driver_mvc;  // >= this under minor-version compatibility
};

// The runtime's version from cudaRuntimeGetVersion, else from a file name
// with at least major.minor ("libcudart.so.12.4.127").
std::optional<Version> runtime_version_of(const Json& report, const std::string& runtime_fact_base);

// `kb` may be null: the needs are then unknown.
std::vector<CudaRuntimeView> derive_cuda_runtimes(const Json& report, const kb::KnowledgeBase* kb);

}  // namespace cudiag::model
