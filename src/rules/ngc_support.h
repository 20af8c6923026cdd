#pragma once
// The NGC container release a report states, shared by the NGC driver rule and the runtime rule: inside
// an NGC image on a data-center GPU, a driver of one of the release's forward-compatibility branches runs
// the image's CUDA through the compat libcuda the image carries, though the driver is older than it.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/json.h"
#include "kb/knowledge_base.h"
#include "kb/ngc_containers.h"
#include "rules/rule_support.h"

namespace cudiag::rules {

// The release stated (--assume ngc, a pasted image name) and the fact it comes from, or the one the image
// cudiag runs in declares (the container probe's "NGC PyTorch 21.10", from NVIDIA_PYTORCH_VERSION).
std::optional<std::pair<std::string, std::string>> stated_ngc_release(const Json& report);

// The stated release, when the knowledge base has it.
std::optional<kb::NgcRelease> ngc_release_of(const Json& report, const kb::KnowledgeBase& kb);

// Whether every GPU is known and a data-center GPU (none known: false). The NGC forward-compatibility
// branches apply only there.
bool all_datacenter_gpus(const std::vector<GpuView>& list);

// The CUDA the stated NGC image runs on the host driver only through its forward-compatibility package:
// every GPU is a known data-center GPU and the driver is of one of the release's data-center branches,
// below the branch the release otherwise needs. Nothing when the package does not serve.
std::optional<Version> ngc_forward_compat_cuda(const Json& report, const kb::KnowledgeBase& kb);

// Whether code built for CUDA `build` runs through that package: its CUDA release (major.minor; patch
// levels of one release are one CUDA) is not newer than the one served.
bool ngc_compat_covers(const std::optional<Version>& served, const Version& build);

}  // namespace cudiag::rules
