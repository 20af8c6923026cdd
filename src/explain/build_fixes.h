#pragma once
// What to change when a build fails, computed from the versions a message
// names and the knowledge base (and, when stated, the toolkit, the GPU and the
// torch release). Pure: explain's machine checks call these with what the
// report knows, or with nothing (explain --no-collect).
#include <optional>
#include <string>

#include "core/version.h"
#include "kb/knowledge_base.h"

namespace cudiag::explain {

struct BuildFix {
  std::string fix;
  std::string layer;  // the layer the fix is in, when it differs from the message's
};

// nvcc (or ptxas, `from_ptxas`) rejecting `arch`: "native", which nvcc accepts from CUDA 11.6 and
// CMake from 3.24, a placeholder a failed detection left ("compute_", "compute_No"), an architecture
// newer than the stated GPU, or one the toolkits dropped, are the build's list to change (binaries);
// nullopt when the signature's own answer (a toolkit too old) stands. `gpu_cc` and `gpu_label` name
// the architecture to use instead.
std::optional<BuildFix> nvcc_arch_fix(const kb::KnowledgeBase& kb, const std::string& arch, bool from_ptxas,
                                      const std::optional<Version>& nvcc,
                                      const std::optional<Version>& gpu_cc, const std::string& gpu_label);

// torch.utils.cpp_extension refusing toolkit CUDA `toolkit` for a torch built with CUDA `torch_cuda`:
// when a torch release (`release`, else any that has a `torch_cuda` build) also publishes a build for
// the toolkit's major, installing it is the fix (frameworks); otherwise the toolkit must be torch's
// (cuda_runtime). A toolkit of torch's major but another minor (only a warning) is lined up with
// torch's CUDA (cuda_runtime).
BuildFix extension_cuda_fix(const kb::KnowledgeBase& kb, const Version& toolkit, const Version& torch_cuda,
                            const std::optional<Version>& release);

// A torch installed for another CUDA than the one wanted (pip's -f torch_stable.html picking +cu92,
// conda resolving a CPU build): the release's build for `wanted` (or the nearest of its major), pinned
// with its local version and installed from that variant's index. nullopt when nothing is wanted.
std::optional<BuildFix> torch_variant_fix(const kb::KnowledgeBase& kb, const std::optional<Version>& release,
                                          const std::optional<Version>& wanted);

// A compile error naming `identifier` as undefined: when the knowledge base's toolkit_identifiers
// knows the name, the toolkit release that added it (the toolkit is too old) or removed it (too
// new), as the fix (cuda_runtime). `nvcc`, when known, tells a toolkit
// that already has the name (another toolkit's headers are found first). nullopt for other names.
std::optional<BuildFix> identifier_fix(const kb::KnowledgeBase& kb, const std::string& identifier,
                                       const std::optional<Version>& nvcc);

}  // namespace cudiag::explain
