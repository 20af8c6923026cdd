#pragma once
// Which CUDA build a PyTorch version means. "2.5.1+cu124" says so in its local
// label; a plain "2.5.1" (what `pip install torch==2.5.1` gives on Linux x86_64)
// is the build PyTorch promoted to PyPI for that release, recorded in the
// knowledge base's framework_matrix as each torch row's `pypi_default`.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/version.h"

namespace cudiag::kb {
class KnowledgeBase;
}

namespace cudiag::workflow {

// "2.7.0+cu128" -> 12.8, "1.13.1+cu117.with.pypi.cudnn" -> 11.7; nullopt without a +cuXYZ label.
std::optional<Version> torch_label_cuda(std::string_view torch);

struct TorchDefaultBuild {
  Version cuda;
  std::string release;     // the framework_matrix entry: "2.5"
  std::string confidence;  // "confirmed", "single-source", "disputed"
  std::string note;
  std::vector<std::string> sources;  // the sources' URLs
};

// The default PyPI (Linux x86_64) CUDA build of `torch`'s release; nullopt when
// the version carries a local label or the knowledge base has no such row.
std::optional<TorchDefaultBuild> torch_pypi_default(const kb::KnowledgeBase& kb, std::string_view torch);

}  // namespace cudiag::workflow
