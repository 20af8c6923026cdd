#pragma once
// The parts of a report that decide compatibility, as one flat list of keyed
// values: what `lock` pins, `verify` and `diff` compare and `check --require`
// tests. Keys (docs/ci.md lists them):
//   driver, driver.cuda                          host driver and the CUDA version it supports
//   cuda_runtime                                 every libcudart's cudaRuntimeGetVersion (paths in
//   `runtimes`) cuda_toolkit                                 every toolkit's version cudnn, cublas, nccl,
//   nvrtc, ...              each library's distinct versions (report `libraries` keys) torch, torch.cuda,
//   torch.cudnn, jax, ...     framework builds (report `frameworks`, when present) gpu.count, gpu.cc,
//   gpu.name                  the GPUs, whichever layer saw them kernel_test whether the real kernel launch
//   passed (report `kernel_test`)
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "model/frameworks_view.h"

namespace cudiag::kb {
class KnowledgeBase;
}

namespace cudiag::workflow {

enum class ValueKind { kVersion, kText, kBool };

struct StackValue {
  std::string layer;  // the diagnosis layer it belongs to
  std::string key;    // "driver", "cudnn", "torch.cuda", ...
  ValueKind kind = ValueKind::kVersion;
  std::vector<std::string> values;  // distinct, in report order; empty: the layer has none
  std::string from;                 // where in the report (a fact path or a description)
};

struct RuntimeInstance {
  std::string version;  // "" when the runtime did not answer
  std::string path;     // the real path of the libcudart
};

struct Stack {
  std::vector<StackValue> values;  // in layer order
  std::vector<RuntimeInstance> runtimes;
  bool frameworks_collected = false;   // the report has a `frameworks` layer
  bool kernel_test_collected = false;  // the report has a `kernel_test` layer that ran

  const StackValue* find(const std::string& key) const;
};

// Reads a report (collected or loaded; not necessarily diagnosed).
Stack read_stack(const Json& report, const kb::KnowledgeBase& kb);

// Framework installs from the report's `frameworks` layer: the report model's view.
using FrameworkBuild = model::FrameworkBuild;
using model::framework_builds;

// The kernel test's outcome: true passed, false failed, nullopt not run.
std::optional<bool> kernel_test_passed(const Json& report);

// The layer a key belongs to ("torch.cuda" -> "frameworks").
std::string layer_of_key(const std::string& key);

}  // namespace cudiag::workflow
