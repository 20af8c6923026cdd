#pragma once
// The derived views — the host driver, the GPU list, the CUDA runtimes and
// what each needs, the kernel test's failures — computed once from a report
// (fresh or saved) and written into it under `derived`
// (schema/report.schema.json), so a reader sees what the rules used.
// Renderers read them back from the report with the *_of functions, which
// derive them without the knowledge base when a report has no `derived` key.
#include <vector>

#include "core/json.h"
#include "model/cuda_runtimes.h"
#include "model/gpus.h"
#include "model/host_driver.h"
#include "model/kernel_test_view.h"

namespace cudiag::kb {
class KnowledgeBase;
}

namespace cudiag::model {

struct Derived {
  HostDriver host_driver;
  std::vector<GpuView> gpus;
  bool gpus_known = false;
  std::vector<CudaRuntimeView> cuda_runtimes;
  KernelTestView kernel_test;
};

Derived derive(const Json& report, const kb::KnowledgeBase* kb);
// The report's `derived` key.
Json derived_json(const Derived& d);

// From the report's `derived` key when it has one (a diagnosed report), else
// derived from its facts without the knowledge base.
HostDriver host_driver_of(const Json& report);
std::vector<GpuView> gpus_of(const Json& report);

}  // namespace cudiag::model
