#include "model/layers.h"

namespace cudiag::model {

const std::vector<std::string>& layer_order() {
  static const std::vector<std::string> order = {"host",       "kernel_driver", "nvml",
                                                 "driver_api", "cuda_runtime",  "libraries",
                                                 "frameworks", "binaries",      "kernel_test"};
  return order;
}

bool layer_ran(const Json& report, const std::string& layer) {
  if (!report.is_object() || !report.contains(layer)) return false;
  const Json& section = report[layer];
  if (layer == "kernel_test" && section.is_object() && section.contains("status") &&
      section["status"] == "not run")
    return false;
  return true;
}

}  // namespace cudiag::model
