#pragma once
// The NGC container release a report states, shared by the NGC driver rule and the runtime rule: inside
// an NGC image on a data-center GPU, a driver of one of the release's forward-compatibility branches runs
// the image's CUDA through the compat libcuda the image carries, though the driver is older than it.
#include <optional>
#include <string>
#include <utility>

#include "core/json.h"
#include "kb/knowledge_base.h"
#include "kb/ngc_containers.h"

namespace cudiag::rules {

// The release stated (--assume ngc, a pasted image name) and the fact it comes from, or the one the image
// cudiag runs in declares (the container probe's "NGC PyTorch 21.10", from NVIDIA_PYTORCH_VERSION).
std::optional<std::pair<std::string, std::string>> stated_ngc_release(const Json& report);

// The stated release, when the knowledge base has it.
std::optional<kb::NgcRelease> ngc_release_of(const Json& report, const kb::KnowledgeBase& kb);

// Whether the stated NGC image runs its CUDA on the host driver only through its forward-compatibility
// package: every GPU is a known data-center GPU and the driver is of one of the release's data-center
// branches, below the branch the release otherwise needs.
bool ngc_forward_compat_serves(const Json& report, const kb::KnowledgeBase& kb);

}  // namespace cudiag::rules
