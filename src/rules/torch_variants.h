#pragma once
// Which PyTorch wheels carry kernels for a GPU: the knowledge base's
// framework_matrix lists each torch release's CUDA variants with the
// architectures its Linux x86_64 wheel was compiled for (TORCH_CUDA_ARCH_LIST).
// Used by the frameworks rules to name the wheel to install instead of "a
// newer build". Pure: knowledge base in, text out.
#include <optional>
#include <string>

#include "core/version.h"
#include "kb/knowledge_base.h"

namespace cudiag::rules {

// "torch 1.12 for CUDA 11.3 or 11.6 has kernels that run on sm_86: pip install torch==1.12.0 --index-url
// https://download.pytorch.org/whl/cu116 (torchvision and torchaudio from the same index)"; the same
// release's variants first, else the nearest release that has one. With the driver's CUDA known, the
// index is the newest variant not newer than it (no reliance on minor-version compatibility, whose PTX
// limits a newer variant could hit), else one of its major; when the driver runs none, the text says
// the driver comes first. nullopt when the matrix knows no wheel with this architecture.
std::optional<std::string> torch_wheel_for_gpu(const kb::KnowledgeBase& kb, const Version& torch,
                                               const Version& cc,
                                               const std::optional<Version>& driver_cuda = std::nullopt);

}  // namespace cudiag::rules

namespace cudiag::rules {

// For a GPU not known: the variant of the same torch release that carries the newest architecture,
// "torch 1.12 for CUDA 11.6 carries sm_37 to sm_86: pip install torch==1.12.0 --index-url …/cu116";
// nullopt when the matrix has no arch list for the release, or `installed_cuda`'s variant reaches
// that architecture already.
std::optional<std::string> torch_widest_wheel(const kb::KnowledgeBase& kb, const Version& torch,
                                              const std::string& installed_cuda);

}  // namespace cudiag::rules

namespace cudiag::rules {

// For a CPU-only torch: the same release's CUDA builds, "torch 2.0.1's CUDA builds are cu117 and cu118:
// pip install --force-reinstall torch==2.0.1 --index-url https://download.pytorch.org/whl/cu118 (...)".
// The newest variant the driver's CUDA (when known) runs, else the newest; nullopt when the matrix
// has no row for the release.
std::optional<std::string> torch_cuda_wheel(const kb::KnowledgeBase& kb, const Version& torch,
                                            const std::optional<Version>& driver_cuda);

}  // namespace cudiag::rules

namespace cudiag::rules {

// For a driver that supports CUDA `driver_cuda` and a torch that wants more: the newest torch release
// with a build that driver runs (a variant of its CUDA or older, or of its major from CUDA 11 on, by
// minor-version compatibility), "torch 2.7 for CUDA 11.8: pip install torch==2.7.* --index-url
// https://download.pytorch.org/whl/cu118 (...)". nullopt when the matrix has none.
std::optional<std::string> torch_wheel_for_driver(const kb::KnowledgeBase& kb, const Version& driver_cuda);

}  // namespace cudiag::rules

namespace cudiag::rules {

// For a GPU older than a build's architecture list, with no torch release known: the newest release
// whose wheels still carry kernels for it (torch_wheel_for_gpu of that release); nullopt when none does.
std::optional<std::string> torch_newest_wheel_for_gpu(const kb::KnowledgeBase& kb, const Version& cc);

}  // namespace cudiag::rules
