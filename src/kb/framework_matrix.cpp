#include "kb/framework_matrix.h"

#include "core/version.h"

namespace cudiag::kb {

const Json* framework_matrix_row(const KnowledgeBase& kb, const std::string& framework,
                                 const std::string& version, std::optional<long> cuda_major) {
  const Json& table = kb.raw("framework_matrix");
  if (!table.is_object() || !table.contains("entries")) return nullptr;
  auto v = Version::parse(version.substr(0, version.find('+')));
  for (const auto& e : table["entries"]) {
    if (e.value("framework", "") != framework) continue;
    if (e.contains("cuda_major") && cuda_major && e["cuda_major"].get<long>() != *cuda_major) continue;
    if (e.contains("release")) {
      auto rel = Version::parse(e["release"].get<std::string>());
      if (!v || !rel) continue;
      bool match = true;
      for (std::size_t i = 0; i < rel->parts().size(); ++i) match = match && v->part(i) == rel->part(i);
      if (!match) continue;
    }
    return &e;
  }
  return nullptr;
}

std::vector<Version> framework_cuda_variants(const Json& row) {
  std::vector<Version> out;
  if (!row.is_object() || !row.contains("cuda_variants") || !row["cuda_variants"].is_array()) return out;
  for (const auto& v : row["cuda_variants"]) {
    if (!v.is_string()) continue;
    if (auto parsed = Version::parse(v.get<std::string>())) out.push_back(*parsed);
  }
  return out;
}

}  // namespace cudiag::kb
