#include "rules/framework_support.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/pep440.h"
#include "inspect/arch_compat.h"
#include "inspect/verdict.h"
#include "kb/knowledge_base.h"
#include "rules/arch_targets.h"
#include "rules/engine.h"
#include "rules/rule_support.h"

namespace cudiag::rules {

std::vector<FwRef> frameworks_in(const Json& report) {
  std::vector<FwRef> out;
  const Json& envs = value_at(report, "frameworks.environments");
  if (!envs.is_array()) return out;
  for (std::size_t i = 0; i < envs.size(); ++i) {
    // By reference into the report: the FwRefs point into it.
    if (!envs[i].contains("frameworks") || !envs[i]["frameworks"].is_array()) continue;
    const Json& fws = envs[i]["frameworks"];
    for (std::size_t j = 0; j < fws.size(); ++j)
      out.push_back({fmt::format("frameworks.environments[{}].frameworks[{}]", i, j), &fws[j], &envs[i],
                     fmt::format("frameworks.environments[{}]", i)});
  }
  return out;
}

std::string version_text(const Json& fw) {
  const Json& v = fw.contains("version") ? fw["version"] : Json();
  if (v.is_object() && v.contains("value") && v["value"].is_string()) return v["value"].get<std::string>();
  const Json& b = fw.contains("build") && fw["build"].contains("version") ? fw["build"]["version"] : Json();
  if (b.is_object() && b.contains("value") && b["value"].is_string()) return b["value"].get<std::string>();
  return "";
}

std::string label(const FwRef& r) {
  auto v = version_text(*r.fw);
  return fmt::format("{}{}{} in {}", r.fw->value("name", "?"), v.empty() ? "" : " ", v,
                     r.env->value("prefix", "?"));
}

// The knowledge base's framework_matrix sources as docs.
std::vector<DocRef> kb_docs(const kb::KnowledgeBase& kb, const Json& entry, const std::string& key) {
  std::vector<DocRef> docs;
  const Json& table = kb.raw("framework_matrix");
  if (!entry.contains(key) || !table.is_object()) return docs;
  std::vector<Json> refs;
  if (entry[key].is_array()) {
    for (const auto& s : entry[key]) refs.push_back(s);
  } else {
    refs.push_back(entry[key]);
  }
  for (const auto& s : refs) {
    const Json* src = &s;
    if (s.is_string() && table["sources"].contains(s.get<std::string>()))
      src = &table["sources"][s.get<std::string>()];
    if (src->is_object()) docs.push_back({src->value("url", ""), src->value("section", "")});
  }
  return docs;
}

const Json& fw_value(const Json& report, const FwRef& r, const std::string& sub) {
  return value_at(report, r.path + "." + sub);
}

BuildCuda build_cuda(const Json& report, const FwRef& r) {
  BuildCuda b;
  for (const char* sub : {"build.cuda"}) {
    const Json& v = fw_value(report, r, sub);
    if (v.is_string()) {
      if (auto p = Version::parse(v.get<std::string>())) {
        b.version = Version::parse(fmt::format("{}.{}", p->major(), p->minor()));
        b.major = p->major();
        b.fact = r.path + "." + sub;
        return b;
      }
    }
  }
  const Json& m = fw_value(report, r, "build.cuda_major");
  if (m.is_number_integer()) {
    b.major = m.get<long>();
    b.fact = r.path + ".build.cuda_major";
  }
  return b;
}

}  // namespace cudiag::rules
