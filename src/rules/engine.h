#pragma once
// The rules engine. A rule is a pure function of (report, knowledge base) to
// findings: it never collects. Rules register themselves from their own files
// in src/rules/ with RegisterRule; the engine runs them all, orders the
// findings by layer, names the first failing layer, and marks errors in later
// layers that only follow from it as consequences.
#include <functional>
#include <string>
#include <vector>

#include "core/json.h"
#include "rules/finding.h"

namespace cudiag::kb {
class KnowledgeBase;
}

namespace cudiag::rules {

using RuleFn =
    std::function<void(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out)>;

struct RuleDef {
  std::string name;  // the rule file's topic, e.g. "kernel_driver"; finding ids carry their own names
  RuleFn fn;
};

struct RegisterRule {
  explicit RegisterRule(RuleDef def);
};

const std::vector<RuleDef>& registered_rules();

struct Diagnosis {
  std::vector<Finding> findings;
  std::string first_failing_layer;  // "" when no layer fails
  Json layer_status;                // {"host": "ok"|"error"|"warning"|"unknown", ...}
  Json derived;                     // the report model's derived views the rules used (model/derived.h)
};

Diagnosis diagnose(const Json& report, const kb::KnowledgeBase& kb);
// Writes findings, first_failing_layer, layer_status and derived into the report.
void attach_diagnosis(Json& report, const Diagnosis& d);

}  // namespace cudiag::rules
