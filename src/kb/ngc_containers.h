#pragma once
// Releases of NVIDIA's NGC framework containers (the knowledge base's ngc_containers table), as
// `--assume ngc=YY.MM` and the rule for a host driver older than a release needs look them up.
#include <optional>
#include <string>
#include <vector>

#include "core/version.h"
#include "kb/knowledge_base.h"

namespace cudiag::kb {

struct NgcDatacenterBranch {
  long branch = 0;
  std::optional<Version> min;  // "450.51 (or later R450)"; none when the page names the branch only
};

struct NgcRelease {
  std::string release;  // "21.10"
  Version cuda;         // 11.4.2
  long driver_branch = 0;
  std::vector<NgcDatacenterBranch> datacenter;
  std::string source;  // the release notes it comes from
};

// The release `yy_mm` ("21.10"), if the table has it.
std::optional<NgcRelease> ngc_release(const KnowledgeBase& kb, const std::string& yy_mm);

// Every release of the table, oldest first.
std::vector<NgcRelease> ngc_releases(const KnowledgeBase& kb);

// Whether `driver` runs `r`: its branch is the one required or newer, or (on a data-center GPU, when
// `datacenter_gpu`) one of the data-center branches at or above that branch's minimum.
bool ngc_driver_runs(const NgcRelease& r, const Version& driver, bool datacenter_gpu);

}  // namespace cudiag::kb
