#pragma once
// Whether a CUDA runtime of version V runs on the host driver, by NVIDIA's
// documented rules: backward compatibility (driver's CUDA ≥ V), minor-version
// compatibility (same major, driver ≥ that major's floor, with limits), or
// not at all (a newer driver, or forward compatibility, is needed). Shared by
// every rule that compares a CUDA build with the driver (runtimes, libraries,
// frameworks' bundled runtimes).
#include <optional>
#include <string>

#include "core/json.h"
#include "core/version.h"
#include "kb/knowledge_base.h"
#include "model/cuda_runtimes.h"
#include "rules/rule_support.h"

namespace cudiag::rules {

enum class RuntimeVerdict { kUnknown, kCompatible, kMinorVersionCompat, kNeedsNewerDriver };

struct RuntimeCheck {
  RuntimeVerdict verdict = RuntimeVerdict::kUnknown;
  std::optional<kb::DriverRequirement> requirement;  // the KB row for the runtime's version
  bool observed_insufficient = false;  // the runtime itself answered cudaErrorInsufficientDriver
};

// `runtime_fact_base` ("cuda_runtime.runtimes[0]") lets the check use what the
// runtime itself answered (cudaGetDeviceCount → 35); "" when there is none.
RuntimeCheck check_runtime_against_driver(const kb::KnowledgeBase& kb, const Version& runtime,
                                          const HostDriver& driver, const Json& report,
                                          const std::string& runtime_fact_base);

// The runtime's version: the report model's (src/model/cuda_runtimes.h).
using model::runtime_version_of;

// "driver ≥ 550.54.14 (≥ 525.60.13 under minor-version compatibility)".
std::string describe_minimum(const RuntimeCheck& c);
// "install driver ≥ …, or use a CUDA 12.x build, or … cuda-compat-13-0".
std::string remedy_for_newer_driver(const RuntimeCheck& c, const Version& runtime, const HostDriver& driver,
                                    bool forward_compat_possible);
// What does not work under minor-version compatibility, with the driver's PTX ISA.
std::string mvc_limits_text(const kb::KnowledgeBase& kb, const HostDriver& driver);

}  // namespace cudiag::rules
