#include "model/host_driver.h"

#include <fmt/format.h>

#include "kb/knowledge_base.h"
#include "model/facts.h"

namespace cudiag::model {

HostDriver derive_host_driver(const Json& report, const kb::KnowledgeBase* kb) {
  HostDriver d;
  d.kernel_module = version_at(report, "kernel_driver.version");
  d.user_space = version_at(report, "driver_api.library_version");
  d.nvml = version_at(report, "nvml.driver_version");
  d.forward_compat = bool_at(report, "driver_api.forward_compat_package").value_or(false);
  if (d.forward_compat && d.user_space) {
    d.version = d.user_space;
    d.version_fact = "driver_api.library_version";
    d.version_from = "forward-compat libcuda";
  } else if (d.kernel_module) {
    d.version = d.kernel_module;
    d.version_fact = "kernel_driver.version";
    d.version_from = "kernel module";
  } else if (d.nvml) {
    d.version = d.nvml;
    d.version_fact = "nvml.driver_version";
    d.version_from = "NVML";
  } else if (d.user_space) {
    d.version = d.user_space;
    d.version_fact = "driver_api.library_version";
    d.version_from = "user-space libcuda";
  }
  // cuDriverGetVersion answers for the libcuda actually loaded (compat or not); NVML for the host driver.
  for (const char* path : {"driver_api.cuda_driver_version", "nvml.cuda_driver_version"}) {
    if (auto v = version_at(report, path)) {
      d.cuda = v;
      d.cuda_fact = path;
      break;
    }
  }
  if (!d.cuda && d.version && kb != nullptr) {
    if (auto c = kb->cuda_for_driver(*d.version)) d.cuda = c;
  }
  return d;
}

std::string describe(const HostDriver& d) {
  if (d.version && d.cuda) return fmt::format("{} (CUDA {})", d.version->text(), d.cuda->text());
  if (d.version) return d.version->text();
  if (d.cuda) return fmt::format("one that supports CUDA {}", d.cuda->text());
  return "unknown";
}

}  // namespace cudiag::model
