#include "rules/engine.h"

#include <algorithm>

#include "model/derived.h"

namespace cudiag::rules {

namespace {
std::vector<RuleDef>& rule_table() {
  static std::vector<RuleDef> table;
  return table;
}

std::size_t layer_index(const std::string& layer) {
  const auto& order = model::layer_order();
  auto it = std::find(order.begin(), order.end(), layer);
  return static_cast<std::size_t>(it - order.begin());
}
}  // namespace

RegisterRule::RegisterRule(RuleDef def) { rule_table().push_back(std::move(def)); }

const std::vector<RuleDef>& registered_rules() { return rule_table(); }

Diagnosis diagnose(const Json& report, const kb::KnowledgeBase& kb) {
  Diagnosis d;
  for (const auto& rule : registered_rules()) rule.fn(report, kb, d.findings);
  std::stable_sort(d.findings.begin(), d.findings.end(), [](const Finding& a, const Finding& b) {
    if (layer_index(a.layer) != layer_index(b.layer)) return layer_index(a.layer) < layer_index(b.layer);
    return a.severity > b.severity;
  });
  // The first layer with an error is the one to fix; errors further down are
  // what it causes, unless the rule marked its finding independent.
  for (const auto& f : d.findings) {
    if (f.severity == Severity::kError) {
      d.first_failing_layer = f.layer;
      break;
    }
  }
  if (!d.first_failing_layer.empty()) {
    auto first = layer_index(d.first_failing_layer);
    for (auto& f : d.findings) {
      if (f.severity == Severity::kError && layer_index(f.layer) > first && f.consequence_of.empty() &&
          !f.independent) {
        f.consequence_of = d.first_failing_layer;
      }
    }
  }
  d.layer_status = Json::object();
  for (const auto& layer : model::layer_order()) {
    if (!report.contains(layer)) continue;
    // A layer that is there but did not run (a kernel test under --root) is unknown, not ok.
    std::string status = model::layer_ran(report, layer) ? "ok" : "unknown";
    for (const auto& f : d.findings) {
      if (f.layer != layer) continue;
      if (f.severity == Severity::kError)
        status = "error";
      else if (f.severity == Severity::kWarning && status == "ok")
        status = "warning";
    }
    d.layer_status[layer] = status;
  }
  d.derived = model::derived_json(model::derive(report, &kb));
  return d;
}

void attach_diagnosis(Json& report, const Diagnosis& d) {
  Json findings = Json::array();
  for (const auto& f : d.findings) findings.push_back(finding_to_json(f));
  report["findings"] = findings;
  report["first_failing_layer"] = d.first_failing_layer.empty() ? Json(nullptr) : Json(d.first_failing_layer);
  report["layer_status"] = d.layer_status;
  report["derived"] = d.derived;
}

}  // namespace cudiag::rules
