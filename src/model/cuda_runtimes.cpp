#include "model/cuda_runtimes.h"

#include <fmt/format.h>

#include "kb/knowledge_base.h"
#include "model/facts.h"

namespace cudiag::model {

std::optional<Version> runtime_version_of(const Json& report, const std::string& base) {
  if (auto v = version_at(report, base + ".runtime_version")) return v;
  const Json& file = fact_at(report, base + ".file_version");
  if (file.is_string()) {
    auto v = Version::parse(file.get<std::string>());
    if (v && v->parts().size() >= 2) return v;
  }
  return std::nullopt;
}

std::vector<CudaRuntimeView> derive_cuda_runtimes(const Json& report, const kb::KnowledgeBase* kb) {
  std::vector<CudaRuntimeView> out;
  const Json& list = fact_at(report, "cuda_runtime.runtimes");
  if (!list.is_array()) return out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    CudaRuntimeView r;
    r.fact = fmt::format("cuda_runtime.runtimes[{}]", i);
    r.path = str_field(list[i], "path");
    r.real_path = str_field(list[i], "real_path");
    r.version = runtime_version_of(report, r.fact);
    if (r.version) {
      r.version_fact = version_at(report, r.fact + ".runtime_version") ? r.fact + ".runtime_version"
                                                                       : r.fact + ".file_version";
    }
    if (r.version && kb != nullptr) {
      // The knowledge base's rows are per major.minor ("12.4"), as the rules compare them.
      if (auto req = kb->driver_for_cuda(Version::from_cuda_int(r.version->to_cuda_int()))) {
        r.needs_driver = req->full_min;
        r.needs_driver_mvc = req->mvc_min;
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace cudiag::model
