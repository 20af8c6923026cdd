#pragma once
// Rules declared as data. Each rules file starts with a table of the finding
// ids it emits — id, layer, severity, when it fires, the scenario or test that
// covers it, and its message and remediation templates — and registers it here. docs/rules.md's tables are
// generated from these tables (tests/unit/rules/rule_table_test.cpp regenerates them with
// CUDIAG_UPDATE_RULES_DOC=1 and fails when the file is stale), and the same test fails when a finding id
// emitted in src/ or by a scenario is not in a table, or when a table names coverage that does not exist.
#include <concepts>
#include <initializer_list>
#include <source_location>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudiag::rules {

// One spec a block, with designated initializers:
//   {.id = "nvml.init_failed",
//    .layer = "nvml",
//    .severity = "error",
//    .when = "any other `nvmlInit_v2` failure, with its meaning",
//    .covered_by = "scenario debian-r535-userspace-cuda13-no-gpu",
//    .message = "nvmlInit_v2 → {call}{meaning}.",
//    .remediation = "{remedy}"},
struct RuleSpec {
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
  // The finding's message and remediation, with named placeholders ("{call}") that the rule fills
  // (rules::finding() in rule_support.h); "{{" and "}}" are literal braces. A value is inserted as is.
  // No default: a spec without them does not compile (-Wmissing-field-initializers, -Werror).
  std::string message;
  std::string remediation;
  std::string group = "";  // the section of docs/rules.md; "" = the id's prefix
  std::string file = "";   // the rules file that declared it (set on registration)
};

struct RegisterRuleTable {
  RegisterRuleTable(std::initializer_list<RuleSpec> specs,
                    std::source_location where = std::source_location::current());
};

// Every registered spec, ordered by the declaring file's name, then table order.
std::vector<RuleSpec> rule_specs();
// The spec of a finding id, or nullptr.
const RuleSpec* rule_spec(const std::string& id);

// The severities a spec allows: "error (independent) / warning" -> {"error", "warning"}.
std::vector<std::string> declared_severities(const RuleSpec& spec);

// One placeholder's value for format_template(): {"branch", 535}, {"path", lib.path}.
struct TemplateArg {
  TemplateArg(std::string_view name_, std::string value_) : name(name_), value(std::move(value_)) {}
  TemplateArg(std::string_view name_, std::string_view value_) : name(name_), value(value_) {}
  TemplateArg(std::string_view name_, const char* value_) : name(name_), value(value_) {}
  template <std::integral T>
  TemplateArg(std::string_view name_, T value_) : name(name_), value(std::to_string(value_)) {}

  std::string_view name;
  std::string value;
};

// The placeholder names of a template, in order of first use. Throws std::logic_error when the
// template is malformed (an unmatched brace, an empty or ill-formed name).
std::vector<std::string> template_placeholders(std::string_view tmpl);
// `tmpl` with each {name} replaced by its value. Throws std::logic_error when the template is
// malformed or uses a name `args` does not supply; `used` (if given) gets a mark per arg it uses.
std::string format_template(std::string_view tmpl, const std::vector<TemplateArg>& args,
                            std::vector<bool>* used = nullptr);

}  // namespace cudiag::rules
