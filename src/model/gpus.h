#pragma once
// The GPUs as one list, whichever layer saw them: the PCI bus first (it
// sees a GPU whose driver is broken), completed by NVML and the driver API
// for the same bus id, else NVML's or the driver API's list; each with its
// knowledge-base product and architecture when a knowledge base is given.
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/version.h"

namespace cudiag::kb {
class KnowledgeBase;
struct Gpu;
struct Arch;
}  // namespace cudiag::kb

namespace cudiag::model {

struct GpuView {
  std::string label;   // "GeForce RTX 4090 (0000:01:00.0)", "sm_90 GPU"
  std::string fact;    // where in the report it comes from
  std::string source;  // that fact's source
  std::string name;
  std::string bus_id;
  std::optional<Version> cc;
  std::string segment;  // "datacenter", "consumer", "workstation", ... ("" unknown)
  std::string bound_driver;
  const kb::Gpu* kb_gpu = nullptr;
  const kb::Arch* arch = nullptr;
};

// `kb` may be null: names and compute capabilities then come from the report alone.
std::vector<GpuView> derive_gpus(const Json& report, const kb::KnowledgeBase* kb);
// Whether the report says anything about the GPUs present (so an empty list means "none").
bool gpus_known(const Json& report);
// Whether the report's GPUs are all of the machine's: collected, or listed by a tool's output, not only
// named in a reporter's words (kernel_driver.pci_devices[].named_only).
bool gpu_count_known(const Json& report);

}  // namespace cudiag::model
