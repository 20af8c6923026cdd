// explain's machine check for a driver that does not come up on a GPU the
// newest drivers no longer support: a Tesla K80 (Kepler) is driven only by
// branches up to R470, so a cloud image or a distribution's current driver
// never loads for it, and nvidia-smi reports no driver. The stated GPU decides
// the fix; a stated driver within the GPU's last branch rules it out.
#include <fmt/format.h>

#include <string>

#include "explain/machine_context.h"
#include "kb/knowledge_base.h"
#include "kb/newest_cuda.h"
#include "kb/records.h"
#include "rules/rule_support.h"

namespace cudiag::explain {

namespace {

// The driver branch the newest CUDA major needs at least (R580 for CUDA 13): what current images and
// distributions install.
long current_branch(const kb::KnowledgeBase& kb) {
  const auto* newest = kb::newest_mvc(kb);
  return newest ? newest->min_branch : 0;
}

}  // namespace

void check_legacy_gpu(const Context& c) {
  if (!c.fix.empty()) return;
  auto driver = rules::host_driver(c.report, c.kb);
  for (const auto& g : rules::gpus(c.report, c.kb)) {
    if (!g.arch || !g.arch->last_driver_branch) continue;
    const long last = *g.arch->last_driver_branch;
    // A driver of its branch (Windows numbers R580's 581.57 and 582.66 above 580): not this.
    if (driver.version && rules::branch_of(*driver.version, c.kb) <= last) continue;
    // With the driver unknown, only a GPU that the newest CUDA's drivers no longer drive (Kepler after
    // R470, not Pascal, whose R580 still runs CUDA 13) is likely to meet a driver too new for it.
    if (!driver.version && last >= current_branch(c.kb)) continue;
    std::string stated = driver.version
                             ? fmt::format("driver {} is newer than that", driver.version->text())
                             : fmt::format(
                                   "a newer driver (what current distributions and cloud images install) "
                                   "does not drive it");
    c.fix = fmt::format(
        "{} is {} ({}), supported only by driver branches up to R{}: {}. Install the R{} driver (the legacy "
        "branch: nvidia-driver-{} on Ubuntu/Debian, the {} .run installer, or a cloud image that ships it), or "
        "move to a newer GPU.",
        g.label, g.arch->name, g.arch->sm, last, stated, last, last, last);
    c.layer = "kernel_driver";
    return;
  }
}

}  // namespace cudiag::explain
