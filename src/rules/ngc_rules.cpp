// NVIDIA's NGC framework containers (nvcr.io/nvidia/pytorch:21.10-py3 ...) each state the driver their
// release needs: a branch or newer, or on data-center GPUs one of a few older branches that the
// forward-compatibility package they carry supports. A host driver that is neither makes CUDA fail
// inside the container (no device, 803, 804) although the container runtime starts it. The release
// comes from --assume ngc or a pasted image name; the facts from the ngc_containers table.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "kb/ngc_containers.h"
#include "rules/engine.h"
#include "rules/ngc_support.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"

namespace cudiag::rules {
namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {.id = "container.ngc_driver_too_old",
     .layer = "driver_api",
     .severity = "error",
     .when =
         "an NGC container release (`--assume ngc=21.10`, or nvcr.io/nvidia/…:21.10 in a pasted text) "
         "needs a newer host driver than the one stated: neither its required branch nor, on a data-center "
         "GPU, one of the branches its forward-compatibility package supports",
     .covered_by = "test unit/rules/ngc_rules_test.cpp",
     .message =
         "NGC container release {release} is based on CUDA {cuda} and needs NVIDIA driver R{branch} or newer{datacenter}; the host driver {driver} is {why}.",
     .remediation = "Install an R{branch} or newer driver on the host, or {older}.",
     .group = "platform"},
};

std::string branches_text(const kb::NgcRelease& r) {
  std::string out;
  for (const auto& d : r.datacenter) {
    out += out.empty() ? "" : ", ";
    out += d.min ? fmt::format("{}+", d.min->text()) : fmt::format("R{}", d.branch);
  }
  return out;
}

void ngc_driver(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  auto stated = stated_ngc_release(report);
  if (!stated) return;
  const auto all = kb::ngc_releases(kb);
  auto found = std::find_if(all.begin(), all.end(),
                            [&](const kb::NgcRelease& r) { return r.release == stated->first; });
  auto driver = host_driver(report, kb);
  if (found == all.end() || !driver.version) return;
  const kb::NgcRelease* release = &*found;
  auto gs = gpus(report, kb);
  const bool datacenter = all_datacenter_gpus(gs);
  // An unknown GPU: the data-center branches may apply, so only a driver no GPU could run it on fails.
  const bool maybe_datacenter = gs.empty() || datacenter;
  if (kb::ngc_driver_runs(*release, *driver.version, maybe_datacenter)) return;
  const bool in_datacenter_branch =
      std::any_of(release->datacenter.begin(), release->datacenter.end(),
                  [&](const kb::NgcDatacenterBranch& d) { return d.branch == driver.version->major(); });
  std::string why = in_datacenter_branch && !maybe_datacenter
                        ? fmt::format(
                              "of a branch the forward-compatibility package supports only on data-center "
                              "GPUs, and {} is not one",
                              gs.front().label)
                        : fmt::format("older than R{} and not of those branches", release->driver_branch);
  // The newest release of the table this driver runs (on this GPU, as far as it is known).
  std::string older = "use an older NGC release built for this driver's CUDA";
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (kb::ngc_driver_runs(*it, *driver.version, datacenter)) {
      older = fmt::format("use NGC release {} (CUDA {}) or older, the newest this driver runs", it->release,
                          it->cuda.text());
      break;
    }
  }
  auto f = finding("container.ngc_driver_too_old",
                   {{"release", release->release},
                    {"cuda", release->cuda.text()},
                    {"branch", release->driver_branch},
                    {"datacenter", release->datacenter.empty() ? std::string()
                                                               : fmt::format(" (on data-center GPUs also {})",
                                                                             branches_text(*release))},
                    {"driver", driver.version->text()},
                    {"why", why},
                    {"older", older}});
  add_driver_evidence(f, report, driver);
  const Json& fact = fact_at(report, stated->second);
  f.evidence.push_back(evidence(stated->second, value_at(report, stated->second),
                                fact.is_object() ? fact.value("source", "report") : "report"));
  f.evidence.push_back(evidence("kb.ngc_containers." + release->release + ".driver_branch",
                                release->driver_branch, "knowledge base"));
  add_doc(f, release->source, fmt::format("NGC release {}: driver requirements", release->release));
  out.push_back(std::move(f));
}

const RegisterRule kNgcDriver{{"container.ngc_driver", ngc_driver}};

}  // namespace
}  // namespace cudiag::rules
