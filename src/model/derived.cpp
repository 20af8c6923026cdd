#include "model/derived.h"

#include "kb/knowledge_base.h"

namespace cudiag::model {

namespace {

Json version_json(const std::optional<Version>& v) { return v ? Json(v->text()) : Json(nullptr); }

std::optional<Version> version_from(const Json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string()) return std::nullopt;
  return Version::parse(obj[key].get<std::string>());
}

std::string string_from(const Json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && obj[key].is_string() ? obj[key].get<std::string>() : "";
}

const Json& derived_key(const Json& report, const char* key) {
  static const Json null_json = nullptr;
  if (!report.is_object() || !report.contains("derived") || !report["derived"].is_object()) return null_json;
  const Json& d = report["derived"];
  return d.contains(key) ? d[key] : null_json;
}

}  // namespace

Derived derive(const Json& report, const kb::KnowledgeBase* kb) {
  Derived d;
  d.host_driver = derive_host_driver(report, kb);
  d.gpus = derive_gpus(report, kb);
  d.gpus_known = model::gpus_known(report);
  d.cuda_runtimes = derive_cuda_runtimes(report, kb);
  d.kernel_test = kernel_test_view(report);
  return d;
}

Json derived_json(const Derived& d) {
  Json out = Json::object();
  const auto& h = d.host_driver;
  out["host_driver"] = {{"version", version_json(h.version)},
                        {"version_fact", h.version_fact.empty() ? Json(nullptr) : Json(h.version_fact)},
                        {"version_from", h.version_from.empty() ? Json(nullptr) : Json(h.version_from)},
                        {"cuda", version_json(h.cuda)},
                        {"cuda_fact", h.cuda_fact.empty() ? Json("knowledge base") : Json(h.cuda_fact)},
                        {"forward_compat", h.forward_compat},
                        {"kernel_module", version_json(h.kernel_module)},
                        {"user_space_libcuda", version_json(h.user_space)},
                        {"nvml", version_json(h.nvml)}};
  if (!h.cuda) out["host_driver"]["cuda_fact"] = nullptr;
  Json gpus = Json::array();
  for (const auto& g : d.gpus) {
    Json j = {{"label", g.label},
              {"name", g.name},
              {"fact", g.fact},
              {"bus_id", g.bus_id},
              {"compute_capability", version_json(g.cc)},
              {"segment", g.segment}};
    if (g.arch) j["arch"] = g.arch->sm;
    gpus.push_back(std::move(j));
  }
  out["gpus"] = gpus;
  out["gpus_known"] = d.gpus_known;
  Json runtimes = Json::array();
  for (const auto& r : d.cuda_runtimes) {
    runtimes.push_back({{"fact", r.fact},
                        {"path", r.real_path.empty() ? r.path : r.real_path},
                        {"version", version_json(r.version)},
                        {"needs_driver", version_json(r.needs_driver)},
                        {"needs_driver_mvc", version_json(r.needs_driver_mvc)}});
  }
  out["cuda_runtimes"] = runtimes;
  if (d.kernel_test.present) {
    Json failures = Json::array();
    for (const auto& f : d.kernel_test.failures) {
      failures.push_back({{"part", f.part}, {"section", f.section}, {"step", f.step}, {"fact", f.fact}});
    }
    out["kernel_test"] = {
        {"status", d.kernel_test.status.empty() ? Json(nullptr) : Json(d.kernel_test.status)},
        {"failures", failures}};
  }
  return out;
}

HostDriver host_driver_of(const Json& report) {
  const Json& j = derived_key(report, "host_driver");
  if (!j.is_object()) return derive_host_driver(report, nullptr);
  HostDriver h;
  h.version = version_from(j, "version");
  h.version_fact = string_from(j, "version_fact");
  h.version_from = string_from(j, "version_from");
  h.cuda = version_from(j, "cuda");
  h.cuda_fact = string_from(j, "cuda_fact");
  if (h.cuda_fact == "knowledge base") h.cuda_fact.clear();
  h.forward_compat = j.contains("forward_compat") && j["forward_compat"] == true;
  h.kernel_module = version_from(j, "kernel_module");
  h.user_space = version_from(j, "user_space_libcuda");
  h.nvml = version_from(j, "nvml");
  return h;
}

std::vector<GpuView> gpus_of(const Json& report) {
  const Json& list = derived_key(report, "gpus");
  if (!list.is_array()) return derive_gpus(report, nullptr);
  std::vector<GpuView> out;
  for (const auto& j : list) {
    GpuView g;
    g.label = string_from(j, "label");
    g.name = string_from(j, "name");
    g.fact = string_from(j, "fact");
    g.bus_id = string_from(j, "bus_id");
    g.cc = version_from(j, "compute_capability");
    g.segment = string_from(j, "segment");
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace cudiag::model
