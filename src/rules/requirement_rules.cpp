// `check --require KEY OP VERSION`: each requirement the stack does not meet
// (report `requirements`, written by the pipeline before diagnosis) is an
// error finding in the layer its key belongs to, so the exit code of a CI
// gate comes from the findings like every other failure, and `analyze` of the
// saved report fails the same way.
#include <fmt/format.h>

#include <algorithm>

#include "rules/engine.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"

namespace cudiag::rules {
namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {.id = "requirement.unsatisfied",
     .layer = "*",
     .severity = "error (independent)",
     .when = "in the layer of its key (`driver` → kernel_driver, `torch.cuda` → frameworks, …): a `--require "
             "KEY OP VERSION` the stack does not meet, or whose key the report lacks "
             "(`src/rules/requirement_rules.cpp` over the report's `requirements`); marked independent, so "
             "it is never a consequence of an earlier failure",
     .covered_by = "test unit/workflow/workflow_commands_test.cpp",
     .message = "The requirement {requirement} is not met: {why}.",
     .remediation =
         "Change the {layer} layer so that {requirement} holds, or change the requirement (--require) if the machine is right."},
};

std::string text(const Json& obj, const char* key) {
  return obj.contains(key) && obj[key].is_string() ? obj[key].get<std::string>() : "";
}

void requirements(const Json& report, const kb::KnowledgeBase&, std::vector<Finding>& out) {
  const Json& list = fact_at(report, "requirements");
  if (!list.is_array()) return;
  const auto& layers = layer_order();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& r = list[i];
    if (!r.is_object() || !r.contains("satisfied") || r["satisfied"] != false) continue;
    auto layer = text(r, "layer");
    // An entry without a layer was written before requirements were findings; `analyze` never judged
    // those, and still does not.
    if (std::find(layers.begin(), layers.end(), layer) == layers.end()) continue;
    auto requirement = text(r, "requirement");
    auto f =
        finding("requirement.unsatisfied", layer, Severity::kError,
                {{"requirement", requirement}, {"why", sentence_body(text(r, "message"))}, {"layer", layer}});
    // A gate the user asked for stands on its own, whatever failed before it.
    f.independent = true;
    f.evidence.push_back(evidence(fmt::format("requirements[{}]", i),
                                  r.contains("actual") ? r["actual"] : Json(),
                                  "check --require " + requirement));
    out.push_back(std::move(f));
  }
}

const RegisterRule kRequirements{{"requirement", requirements}};

}  // namespace
}  // namespace cudiag::rules
