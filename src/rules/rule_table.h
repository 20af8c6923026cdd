#pragma once
// Rules declared as data. Each rules file starts with a table of the finding
// ids it emits — id, layer, severity, when it fires, and the scenario or test
// that covers it — and registers it here. docs/rules.md's tables are generated
// from these tables (tests/unit/rules/rule_table_test.cpp regenerates them
// with CUDIAG_UPDATE_RULES_DOC=1 and fails when the file is stale), and the
// same test fails when a finding id emitted in src/ or by a scenario is not in
// a table, or when a table names coverage that does not exist.
#include <initializer_list>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

namespace cudiag {

struct RuleSpec {
  RuleSpec(std::string id_, std::string layer_, std::string severity_, std::string when_,
           std::string covered_by_, std::string group_ = "")
      : id(std::move(id_)),
        layer(std::move(layer_)),
        severity(std::move(severity_)),
        when(std::move(when_)),
        covered_by(std::move(covered_by_)),
        group(std::move(group_)) {}

  std::string id;
  // The layer the finding is in; "*" when it is the layer of what it judges (requirement.unsatisfied).
  std::string layer;
  // As documented: "error", "error / warning", "error (independent)" ... The first word(s) before a
  // parenthesis, split on " / ", are the severities the finding can have.
  std::string severity;
  std::string when;  // one line: when the rule fires
  // "scenario NAME" (tests/scenarios/NAME.json expects the id), "test PATH" (tests/PATH asserts it),
  // or "" when nothing covers it yet (the generated doc says so).
  std::string covered_by;
  std::string group;  // the section of docs/rules.md; "" = the id's prefix
  std::string file;   // the rules file that declared it (set on registration)
};

struct RegisterRuleTable {
  RegisterRuleTable(std::initializer_list<RuleSpec> specs,
                    std::source_location where = std::source_location::current());
};

// Every registered spec, ordered by the declaring file's name, then table order.
std::vector<RuleSpec> rule_specs();
// The spec of a finding id, or nullptr.
const RuleSpec* rule_spec(const std::string& id);

}  // namespace cudiag
