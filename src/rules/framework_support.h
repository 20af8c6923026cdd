#pragma once
// What the frameworks rules share: each framework of each Python environment in
// the report, its label, what CUDA its build needs, and the knowledge base's
// framework_matrix row and sources for it. framework_rules.cpp holds the build
// rules and the registration; framework_library_rules.cpp the loader rules.
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/version.h"
#include "rules/finding.h"

namespace cudiag::kb {
class KnowledgeBase;
}

namespace cudiag::rules {

struct FwRef {
  std::string path;  // "frameworks.environments[0].frameworks[1]"
  const Json* fw;
  const Json* env;
  std::string env_path;
};

std::vector<FwRef> frameworks_in(const Json& report);
std::string version_text(const Json& fw);
std::string label(const FwRef& r);
// The knowledge base's framework_matrix sources as docs: those an entry's `key` names.
std::vector<DocRef> kb_docs(const kb::KnowledgeBase& kb, const Json& entry,
                            const std::string& key = "source");
const Json& fw_value(const Json& report, const FwRef& r, const std::string& sub);

// What CUDA a framework's build needs: "12.4" from torch/version.py or
// build_info.py; for packages that record only a major (CuPy, ONNX Runtime,
// JAX plugins) the major alone.
struct BuildCuda {
  std::optional<Version> version;  // major.minor when known
  std::optional<long> major;
  std::string fact;
};
BuildCuda build_cuda(const Json& report, const FwRef& r);

// How to get a CUDA build of JAX (pip's extras, or conda-forge's CUDA builds): the remedy of both
// CPU-only rules (with and without a known GPU).
inline constexpr const char* kJaxCudaInstall =
    "pip install -U 'jax[cuda12]' (driver >= 525) or 'jax[cuda13]' (driver >= 580); with conda, "
    "conda install -c conda-forge jax 'jaxlib=*=*cuda*' (conda-forge's CUDA builds)";

// The loader rules (framework_library_rules.cpp), run by the frameworks rule in framework_rules.cpp so the
// findings keep their order.
void framework_libraries(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out);
void framework_mixed_majors(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out);

}  // namespace cudiag::rules
