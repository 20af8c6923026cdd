// Rules for torch's companion packages: torchvision, torchaudio and torchcodec compile their ops
// against one torch release each, and the pair in one environment must be a pair the knowledge
// base's framework_matrix lists (its torch rows' "companions"). A mismatched pair imports, then
// fails at the first op: "operator torchvision::nms does not exist", an undefined symbol in
// torchaudio's or torchcodec's library, or "Could not run 'torchcodec_ns::...' with arguments
// from the 'CPU' backend". Facts: frameworks.environments[].torch_companions (the probe's dist-info
// versions, or stated ones) beside the environment's torch.

#include <fmt/format.h>

#include <cctype>

#include "core/version.h"
#include "kb/framework_matrix.h"
#include "kb/knowledge_base.h"
#include "rules/engine.h"
#include "rules/framework_support.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"

namespace cudiag::rules {

namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {.id = "frameworks.torch_companion_mismatch",
     .layer = "frameworks",
     .severity = "error",
     .when = "torchvision, torchaudio or torchcodec in an environment is a release the knowledge base pairs "
             "with another torch release than the environment's torch (framework_matrix's companions, from "
             "each project's compatibility table).",
     .covered_by = "test unit/frameworks/frameworks_machine_test.cpp",
     .message =
         "{package} {version} is built for torch {paired_torch}, but this environment has torch {torch}",
     .remediation = "{remedy}"},
};

// "0.19.0" -> "0.19"; "" when not a version.
std::string minor_of(const std::string& version) {
  auto v = Version::parse(version.substr(0, version.find('+')));
  if (!v || v->parts().size() < 2) return "";
  return fmt::format("{}.{}", v->part(0), v->part(1));
}

bool lists(const Json& row, const std::string& package, const std::string& minor) {
  const Json* c = row.contains("companions") ? &row["companions"] : nullptr;
  if (!c || !c->contains(package) || !(*c)[package].is_array()) return false;
  for (const auto& r : (*c)[package])
    if (r.is_string() && r.get<std::string>() == minor) return true;
  return false;
}

// The torch release the table pairs with `package` `minor`, or "".
std::string paired_torch(const kb::KnowledgeBase& kb, const std::string& package, const std::string& minor) {
  const Json& table = kb.raw("framework_matrix");
  if (!table.is_object() || !table.contains("entries")) return "";
  for (const auto& e : table["entries"]) {
    if (e.value("framework", "") == "torch" && lists(e, package, minor)) return e.value("release", "");
  }
  return "";
}

// The index torch came from, by its local version tag ("2.4.0+cu124", or build.local_tag): the
// companion must come from the same one.
std::string index_of(const Json& report, const FwRef& r, const std::string& torch) {
  auto plus = torch.find('+');
  std::string tag = plus != std::string::npos ? torch.substr(plus + 1)
                                              : string_at(report, r.path + ".build.local_tag").value_or("");
  if (tag == "cpu" ||
      (tag.starts_with("cu") && tag.size() > 2 && std::isdigit(static_cast<unsigned char>(tag[2]))))
    return "--index-url https://download.pytorch.org/whl/" + tag;
  return "from the index torch came from (its +cuXYZ tag names it: --index-url https://download.pytorch.org/whl/cuXYZ)";
}

void torch_companions(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  for (const auto& r : frameworks_in(report)) {
    if (r.fw->value("name", "") != "torch" || !r.env->contains("torch_companions")) continue;
    const Json& companions = (*r.env)["torch_companions"];
    auto torch = version_text(*r.fw);
    const Json* row = torch.empty() ? nullptr : kb::framework_matrix_row(kb, "torch", torch);
    if (!row || !row->contains("companions") || !companions.is_object()) continue;
    for (const auto& item : companions.items()) {
      const std::string& package = item.key();
      auto companion = r.env_path + ".torch_companions." + package;
      auto version = string_at(report, companion).value_or("");
      auto minor = minor_of(version);
      // No verdict where the table does not list this package for this torch (a release newer than
      // the table's, or a package the project's table starts later).
      if (minor.empty() || !(*row)["companions"].contains(package) || lists(*row, package, minor)) continue;
      auto paired = paired_torch(kb, package, minor);
      if (paired.empty()) continue;  // a release the table does not know either way
      const auto& wanted = (*row)["companions"][package];
      std::string release = row->value("release", "");
      std::string remedy = fmt::format(
          "Install the {0} release built for torch {1}: pip install \"{0}=={2}.*\" {5}, or install torch {3} to "
          "match {0} {4}. pip install torch {0} in one command keeps the pair together.",
          package, release, wanted.empty() ? minor : wanted.back().get<std::string>(), paired, version,
          index_of(report, r, torch));
      auto fd = finding("frameworks.torch_companion_mismatch", {{"package", package},
                                                                {"version", version},
                                                                {"paired_torch", paired},
                                                                {"torch", torch},
                                                                {"remedy", remedy}});
      fd.evidence.push_back(evidence_from(report, companion));
      fd.evidence.push_back(evidence_from(
          report, present(report, r.path + ".version") ? r.path + ".version" : r.path + ".build.version"));
      // A companion mismatch fails whatever the layers below it do: it is no consequence of them.
      fd.independent = true;
      if (row->contains("companions_source")) fd.docs = kb_docs(kb, (*row)["companions_source"], package);
      out.push_back(std::move(fd));
    }
  }
}

const RegisterRule kRule{{"torch_companions", torch_companions}};

}  // namespace

}  // namespace cudiag::rules
