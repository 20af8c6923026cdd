#include "workflow/torch_builds.h"

#include "kb/knowledge_base.h"

namespace cudiag::workflow {

std::optional<Version> torch_label_cuda(std::string_view torch) {
  auto plus = torch.find("+cu");
  if (plus == std::string_view::npos) return std::nullopt;
  std::string_view rest = torch.substr(plus + 3);
  std::size_t n = 0;
  while (n < rest.size() && rest[n] >= '0' && rest[n] <= '9') ++n;
  if (n < 2) return std::nullopt;
  std::string digits(rest.substr(0, n));
  return Version::parse(digits.substr(0, n - 1) + "." + digits.substr(n - 1));
}

std::optional<TorchDefaultBuild> torch_pypi_default(const kb::KnowledgeBase& kb, std::string_view torch) {
  if (torch.find('+') != std::string_view::npos) return std::nullopt;
  auto v = Version::parse(torch);
  const Json& table = kb.raw("framework_matrix");
  if (!v || !table.is_object() || !table.contains("entries")) return std::nullopt;
  for (const auto& e : table["entries"]) {
    if (e.value("framework", "") != "torch" || !e.contains("pypi_default")) continue;
    auto rel = Version::parse(e.value("release", ""));
    if (!rel) continue;
    bool match = true;
    for (std::size_t i = 0; i < rel->parts().size(); ++i) match = match && v->part(i) == rel->part(i);
    if (!match) continue;
    const Json& d = e["pypi_default"];
    auto cuda = Version::parse(d.value("cuda", ""));
    if (!cuda) return std::nullopt;
    TorchDefaultBuild out{
        *cuda, rel->text(), d.value("confidence", table.value("confidence", "")), d.value("note", ""), {}};
    const Json& src = d.contains("source") ? d["source"] : Json();
    std::vector<Json> refs;
    if (src.is_array()) {
      for (const auto& s : src) refs.push_back(s);
    } else if (!src.is_null()) {
      refs.push_back(src);
    }
    for (const auto& s : refs) {
      const Json* ref = &s;
      if (s.is_string() && table["sources"].contains(s.get<std::string>()))
        ref = &table["sources"][s.get<std::string>()];
      if (ref->is_object()) out.sources.push_back(ref->value("url", ""));
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace cudiag::workflow
