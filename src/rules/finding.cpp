#include "rules/finding.h"

#include "core/fact.h"

namespace cudiag::rules {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "info";
  }
  return "info";
}

Json finding_to_json(const Finding& f) {
  Json j = Json::object();
  j["id"] = f.id;
  j["layer"] = f.layer;
  j["severity"] = severity_name(f.severity);
  j["message"] = f.message;
  Json ev = Json::array();
  for (const auto& e : f.evidence) {
    Json x = Json::object();
    x["fact"] = e.fact;
    x["value"] = e.value;
    x["source"] = e.source;
    ev.push_back(x);
  }
  j["evidence"] = ev;
  j["remediation"] = f.remediation;
  Json docs = Json::array();
  for (const auto& d : f.docs) {
    Json x = Json::object();
    x["url"] = d.url;
    x["section"] = d.section;
    docs.push_back(x);
  }
  j["docs"] = docs;
  if (!f.consequence_of.empty()) j["consequence_of"] = f.consequence_of;
  return j;
}

Evidence evidence_from(const Json& report, const std::string& path) {
  const Json& f = model::fact_at(report, path);
  Evidence e;
  e.fact = path;
  if (f.is_object() && f.contains("value")) {
    e.value = f["value"];
    e.source = f.value("source", "");
    if (f.contains("code")) e.value = Json::object({{"name", f["value"]}, {"code", f["code"]}});
  } else {
    e.value = f;
  }
  return e;
}

}  // namespace cudiag::rules
