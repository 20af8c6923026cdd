#include "kb/json_out.h"

#include <cstdio>

namespace cudiag::kb {

namespace {
Json opt(const std::optional<Version>& v) { return v ? Json(v->text()) : Json(nullptr); }

void add_provenance(Json& j, const Provenance& p) {
  j["confidence"] = to_string(p.confidence);
  if (!p.note.empty()) j["note"] = p.note;
  j["sources"] = sources_json(p.sources);
}
}  // namespace

Json to_json(const Source& s) { return Json{{"url", s.url}, {"section", s.section}}; }

Json sources_json(const std::vector<Source>& sources) {
  Json a = Json::array();
  for (const auto& s : sources) a.push_back(to_json(s));
  return a;
}

Json to_json(const ErrorCode& e) {
  Json j{{"api", e.api}, {"code", e.code}, {"name", e.name}, {"meaning", e.meaning}};
  add_provenance(j, e);
  return j;
}

Json to_json(const MinorVersionCompat& m) {
  Json j{{"cuda_major", m.cuda_major},
         {"min_branch", m.min_branch},
         {"linux_min", opt(m.linux_min)},
         {"windows_min", opt(m.windows_min)},
         {"windows_confidence", to_string(m.windows_confidence)}};
  j["upper_branch"] = m.upper_branch ? Json(*m.upper_branch) : Json(nullptr);
  Json limits = Json::array();
  for (const auto& l : m.limits) limits.push_back(Json{{"id", l.id}, {"text", l.text}});
  j["limits"] = limits;
  add_provenance(j, m);
  return j;
}

Json to_json(const DriverRequirement& r) {
  Json j{{"cuda", r.release->cuda.text()}, {"release", r.release->release}, {"os", r.os}};
  j["full"] =
      Json{{"min", opt(r.full_min)}, {"from", r.full_min_from}, {"confidence", to_string(r.full_confidence)}};
  j["bundled"] = opt(r.bundled);
  if (r.mvc) {
    j["minor_version_compat"] =
        Json{{"cuda_major", r.mvc->cuda_major},
             {"min", opt(r.mvc_min)},
             {"confidence", to_string(r.os == "windows" ? r.mvc->windows_confidence : r.mvc->confidence)}};
    Json limits = Json::array();
    for (const auto& l : r.mvc->limits) limits.push_back(Json{{"id", l.id}, {"text", l.text}});
    j["minor_version_compat"]["limits"] = limits;
  } else {
    j["minor_version_compat"] = nullptr;
  }
  const auto& col = r.release->for_os(r.os);
  Json notes = Json::array();
  if (!r.release->note.empty()) notes.push_back(r.release->note);
  if (!col.note.empty()) notes.push_back(col.note);
  if (r.mvc && !r.mvc->note.empty()) notes.push_back(r.mvc->note);
  j["notes"] = notes;
  j["sources"] = sources_json(r.sources);
  return j;
}

Json to_json(const DriverBranch& b, bool exact) {
  Json j{{"branch", b.branch}, {"cuda", b.cuda.text()}, {"exact", exact}};
  if (!b.support.empty()) j["support"] = b.support;
  add_provenance(j, b);
  return j;
}

Json to_json(const Arch& a, const ArchVariant* variant) {
  Json j{
      {"cc", a.cc.text()}, {"sm", a.sm}, {"name", a.name}, {"segment", a.segment}, {"examples", a.examples}};
  j["first_cuda"] = opt(a.first_cuda);
  if (a.first_cuda_at_most) j["first_cuda_at_most"] = a.first_cuda_at_most->text();
  j["last_cuda"] = opt(a.last_cuda);
  j["last_driver_branch"] = a.last_driver_branch ? Json(*a.last_driver_branch) : Json(nullptr);
  j["min_ptx_isa"] = opt(a.min_ptx_isa);
  j["carries_forward"] = a.carries_forward;
  Json vars = Json::array();
  for (const auto& v : a.variants) {
    Json vj{{"sm", v.sm},
            {"suffix", v.suffix},
            {"first_cuda", opt(v.first_cuda)},
            {"min_ptx_isa", opt(v.min_ptx_isa)}};
    Json runs = Json::array();
    for (const auto& r : v.runs_on) runs.push_back(r.text());
    vj["runs_on"] = runs;
    vj["carries_forward"] = v.carries_forward;
    add_provenance(vj, v);
    vars.push_back(vj);
  }
  j["variants"] = vars;
  if (variant) j["matched_variant"] = variant->sm;
  add_provenance(j, a);
  return j;
}

Json to_json(const Gpu& g, const Arch* arch) {
  char id[8];
  std::snprintf(id, sizeof id, "0x%04x", g.pci_id);
  Json j{{"pci_id", id},   {"name", g.name},    {"pci_name", g.pci_name},
         {"chip", g.chip}, {"cc", g.cc.text()}, {"segment", g.segment}};
  j["sm"] = arch ? Json(arch->sm) : Json(nullptr);
  j["architecture"] = arch ? Json(arch->name) : Json(nullptr);
  add_provenance(j, g);
  return j;
}

Json to_json(const PtxIsa& p) {
  Json j{{"cuda", p.cuda.text()}, {"ptx_isa", p.isa.text()}, {"toolkit_released", p.toolkit_released}};
  add_provenance(j, p);
  return j;
}

}  // namespace cudiag::kb
