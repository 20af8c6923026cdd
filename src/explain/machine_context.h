#pragma once
// What explain's machine checks share (src/explain/machine_lines.cpp runs
// them): the explanation being completed, the report it is read against, and
// where a check writes its lines, its fix and the layer the fix is in.
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/version.h"
#include "explain/explain.h"
#include "explain/signatures.h"
#include "kb/knowledge_base.h"

namespace cudiag::explain {

struct Context {
  const Json& report;
  const kb::KnowledgeBase& kb;
  const Signature& sig;
  const Explanation& e;
  std::vector<std::string>& out;
  std::string& fix;    // the explanation's machine_fix
  std::string& layer;  // the explanation's machine_layer
};

// The values of the explanation's captures of one kind.
std::vector<std::string> values_of_kind(const Context& c, CaptureKind kind);

// The version of the nvcc on PATH, collected or stated.
std::optional<Version> nvcc_version(const Json& report);

// The torch release the report holds (collected or stated), if any.
std::optional<Version> torch_release(const Json& report);

// Build failures whose fix the message's own values decide (explain/build_fixes.h):
// machine_build_checks.cpp.
void check_nvcc_arch(const Context& c);
void check_extension_cuda(const Context& c);
void check_torch_variant(const Context& c);
void check_toolkit_identifier(const Context& c);

// A driver that does not come up on a GPU whose last driver branch is older (a K80 past R470):
// machine_legacy_gpu.cpp.
void check_legacy_gpu(const Context& c);

// CTranslate2's float16 refused: the GPU's compute capability decides between the compute type and a
// model that never reached the GPU: machine_compute_type.cpp.
void check_compute_type(const Context& c);

// Error 35 beside a driver that runs every runtime of its CUDA major: machine_runtime_gap.cpp.
void check_runtime_gap(const Context& c);

}  // namespace cudiag::explain
