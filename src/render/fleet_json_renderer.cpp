// `cudiag fleet --format json`: every count and every host, for scripts.
// Keys (README, docs/ARCHITECTURE.md "The fleet"): schema, files, reports, unreadable, undiagnosed,
// stacks, groups[{count, majority, stack, hosts, differs_from_majority,
// less_precise, error_findings}], findings{id: {severity, layer, message,
// count, hosts, error_count}}, first_failing_layer{layer: {count, hosts}},
// lock{file, drifted_count, drifted, items[…]}, exit_code, verdict.
#include "core/json.h"
#include "render/fleet_render.h"

namespace cudiag::render {

using workflow::fleet::FleetResult;
using workflow::fleet::Members;

namespace {

Json hosts_json(const FleetResult& r, const Members& m) {
  Json a = Json::array();
  for (auto i : m) a.push_back(r.names[i]);
  return a;
}

Json differences_json(const std::vector<workflow::Difference>& list) {
  Json a = Json::array();
  for (const auto& d : list) {
    a.push_back({{"layer", d.layer},
                 {"key", d.key},
                 {"majority", d.before.empty() ? Json(nullptr) : Json(d.before)},
                 {"this", d.after.empty() ? Json(nullptr) : Json(d.after)}});
  }
  return a;
}

}  // namespace

std::string render_fleet_json(const FleetResult& r) {
  Json j;
  j["schema"] = "cudiag.fleet/1";
  j["files"] = r.files;
  j["reports"] = r.reports;
  Json unreadable = Json::array();
  for (const auto& u : r.unreadable) unreadable.push_back({{"path", u.path}, {"reason", u.reason}});
  j["unreadable"] = unreadable;
  j["undiagnosed"] = r.undiagnosed;
  j["stacks"] = r.groups.size();
  Json groups = Json::array();
  for (std::size_t i = 0; i < r.groups.size(); ++i) {
    const auto& g = r.groups[i];
    Json stack = Json::object();
    for (const auto* v : workflow::fleet::shown_values(g.stack)) stack[v->key] = v->values;
    Json errors = Json::object();
    for (const auto& [id, c] : g.errors) errors[id] = c;
    Json jg = {{"count", g.members.size()},
               {"majority", i == 0},
               {"stack", stack},
               {"hosts", hosts_json(r, g.members)}};
    if (i > 0) {
      jg["differs_from_majority"] = differences_json(g.differs);
      jg["less_precise"] = differences_json(g.less_precise);
    }
    jg["error_findings"] = errors;
    groups.push_back(jg);
  }
  j["groups"] = groups;
  Json findings = Json::object();
  for (const auto& f : r.findings) {
    findings[f.id] = {{"severity", f.severity},         {"layer", f.layer},
                      {"message", f.message},           {"count", f.members.size()},
                      {"error_count", f.errors.size()}, {"hosts", hosts_json(r, f.members)}};
  }
  j["findings"] = findings;
  Json first = Json::object();
  for (const auto& l : r.first_failing)
    first[l.layer] = {{"count", l.members.size()}, {"hosts", hosts_json(r, l.members)}};
  j["first_failing_layer"] = first;
  if (r.lock_checked) {
    Json items = Json::array();
    for (const auto& d : r.drift) {
      items.push_back({{"layer", d.layer},
                       {"key", d.key},
                       {"expected", d.expected},
                       {"actual", d.actual.empty() ? Json(nullptr) : Json(d.actual)},
                       {"status", d.status},
                       {"count", d.members.size()},
                       {"hosts", hosts_json(r, d.members)}});
    }
    j["lock"] = {{"file", r.lock_name},
                 {"drifted_count", r.drifted.size()},
                 {"drifted", hosts_json(r, r.drifted)},
                 {"items", items}};
  }
  j["error_nodes"] = r.error_nodes();
  j["exit_code"] = r.exit_code();
  j["verdict"] = fleet_text::verdict(r);
  return json_text(j) + "\n";
}

}  // namespace cudiag::render
