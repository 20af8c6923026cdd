#pragma once
// The host driver: the one definition the rules, the renderers, lock/verify
// and plan use. Three things can answer for it and may disagree: the kernel
// module (/proc/driver/nvidia/version), the user-space driver (NVML, and the
// file name of the libcuda the loader picks) and a forward-compat libcuda
// (cuda-compat), whose own release is what a CUDA runtime then talks to.
#include <optional>
#include <string>

#include "core/json.h"
#include "core/version.h"

namespace cudiag::kb {
class KnowledgeBase;
}

namespace cudiag::model {

struct HostDriver {
  // The driver version the CUDA runtime sees: the forward-compat libcuda's
  // when one is picked, else the kernel module, else NVML, else libcuda's file name.
  std::optional<Version> version;
  std::string version_fact;  // the report path it came from; "" unknown
  // "forward-compat libcuda" | "kernel module" | "NVML" | "user-space libcuda" | "" unknown
  std::string version_from;
  // The newest CUDA version the driver supports (cuDriverGetVersion / NVML),
  // else the knowledge base's value for the driver's branch.
  std::optional<Version> cuda;
  std::string cuda_fact;  // "" when it came from the knowledge base
  bool forward_compat = false;
  std::optional<Version> kernel_module;  // kernel_driver.version alone
  std::optional<Version> user_space;     // driver_api.library_version alone (libcuda's file name)
  std::optional<Version> nvml;           // nvml.driver_version alone
};

// `kb` may be null (a renderer without the knowledge base): `cuda` then comes
// from the report's answers only.
HostDriver derive_host_driver(const Json& report, const kb::KnowledgeBase* kb);

// "535.104.05 (CUDA 12.2)" or "535.104.05" or "one that supports CUDA 12.2" or "unknown".
std::string describe(const HostDriver& d);

}  // namespace cudiag::model
