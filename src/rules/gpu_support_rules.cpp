// Whether the installed driver branch supports each GPU: too old a GPU for
// the branch (Kepler on R535 — the driver ignores it), or too new (an
// sm_120 RTX 5090 on a driver older than the first branch that knows it).
// Facts from the architectures table (last driver branch, first toolkit).
#include <fmt/format.h>

#include "rules/engine.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"

namespace cudiag::rules {
namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {.id = "kernel_driver.gpu_unsupported_by_driver",
     .layer = "kernel_driver",
     .severity = "error",
     .when = "the driver's branch is newer than the architecture's last branch (Kepler on R535)",
     .covered_by = "scenario tesla-k80-on-r535",
     .message =
         "{gpu} ({arch}, {sm}) is not supported by driver {driver}: the last driver branch for {arch} GPUs is R{last_branch}.",
     .remediation =
         "Install an R{last_branch} driver (the legacy branch for {arch}), or move the workload to a newer GPU."},
    {.id = "kernel_driver.gpu_too_new_for_driver",
     .layer = "kernel_driver",
     .severity = "error",
     .when = "the driver's CUDA version is older than the first CUDA that targets the GPU (RTX 5090 on R535)",
     .covered_by = "scenario cuda124-on-r470-needs-newer-driver",
     .message =
         "{gpu} ({arch}, {sm}) needs a driver that supports CUDA {first_cuda} or later; driver {driver} supports CUDA {driver_cuda}.",
     .remediation = "{remedy}"},
};

void gpu_support(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  auto driver = host_driver(report, kb);
  if (!driver.version) return;
  for (const auto& g : gpus(report, kb)) {
    if (!g.arch) continue;
    const auto& a = *g.arch;
    if (a.last_driver_branch && branch_of(*driver.version, kb) > *a.last_driver_branch) {
      auto f = finding("kernel_driver.gpu_unsupported_by_driver", {{"gpu", g.label},
                                                                   {"arch", a.name},
                                                                   {"sm", a.sm},
                                                                   {"driver", driver.version->text()},
                                                                   {"last_branch", *a.last_driver_branch}});
      add_driver_evidence(f, report, driver);
      f.evidence.push_back(evidence(g.fact, g.label, g.source));
      f.evidence.push_back(evidence("kb.architectures." + a.sm + ".last_driver_branch", *a.last_driver_branch,
                                    "knowledge base"));
      add_docs(f, a);
      out.push_back(std::move(f));
      continue;
    }
    // A GPU newer than the driver: the driver must support at least the
    // CUDA version that first targets the architecture.
    auto first = a.first_cuda ? a.first_cuda : a.first_cuda_at_most;
    if (first && driver.cuda && *driver.cuda < Version::from_cuda_int(first->to_cuda_int())) {
      auto branch = first_branch_for_cuda(kb, *first);
      auto f = finding(
          "kernel_driver.gpu_too_new_for_driver",
          {{"gpu", g.label},
           {"arch", a.name},
           {"sm", a.sm},
           {"first_cuda", first->text()},
           {"driver", driver.version->text()},
           {"driver_cuda", driver.cuda->text()},
           {"remedy", branch ? fmt::format("Install a driver of branch R{} or newer.", *branch)
                             : fmt::format("Install a driver that supports CUDA {}.", first->text())}});
      add_driver_evidence(f, report, driver);
      f.evidence.push_back(evidence(g.fact, g.label, g.source));
      add_docs(f, a);
      out.push_back(std::move(f));
    }
  }
}

const RegisterRule kGpuSupport{{"kernel_driver.gpu_support", gpu_support}};

}  // namespace
}  // namespace cudiag::rules
