#include "probes/frameworks/frameworks_probe.h"

#include "core/fact.h"
#include "machine/python_env.h"
#include "probes/frameworks/framework_readers.h"
#include "probes/probe_registry.h"

namespace cudiag::probes {

namespace {

EnvContents scan_env(const ProbeContext& ctx, const machine::PythonEnv& env) {
  EnvContents c;
  c.site_packages = env.site_packages;
  for (const auto& sp : env.site_packages) {
    for (auto& d : machine::scan_distributions(ctx.machine.root, sp, is_framework_related)) {
      // Python imports the first one on sys.path; later copies are shadowed.
      if (c.find(d.name)) continue;
      c.dists.push_back({std::move(d), sp});
    }
  }
  for (const auto& d : c.dists) {
    if (d.dist.name.starts_with("nvidia-")) c.nvidia_wheels.push_back(nvidia_wheel_of(ctx.machine.root, d));
  }
  return c;
}

Json wheels_json(const EnvContents& c) {
  Json a = Json::array();
  for (const auto& w : c.nvidia_wheels) {
    Json j = Json::object();
    j["name"] = w.name;
    j["component"] = w.component;
    j["version"] = fact(w.version, file_source(w.metadata_path));
    j["cuda_major"] = w.cuda_major ? Json(w.cuda_major) : Json(nullptr);
    j["lib_dir"] = w.lib_dir.empty() ? Json(nullptr) : Json(w.lib_dir);
    a.push_back(j);
  }
  return a;
}

// torch's companions (kTorchCompanions): their versions are facts beside torch's. Absent when none
// is installed.
Json companions_json(const EnvContents& c) {
  Json j = Json::object();
  for (const char* name : kTorchCompanions) {
    if (const auto* d = c.find(name)) j[name] = fact(d->dist.version, file_source(d->dist.metadata_path));
  }
  return j;
}

}  // namespace

Json probe_frameworks(const ProbeContext& ctx, const std::vector<std::string>& pythons) {
  Json layer = Json::object();
  Json envs = Json::array();
  for (const auto& env : machine::find_python_envs(ctx.machine.root, ctx.machine.env, {pythons})) {
    Json e = Json::object();
    e["prefix"] = env.prefix;
    e["kind"] = env.kind;
    e["interpreter"] = env.interpreter.empty() ? Json(nullptr) : Json(env.interpreter);
    e["python_version"] = env.python_version.empty() ? Json(nullptr) : Json(env.python_version);
    e["found_via"] = env.found_via;
    e["site_packages"] = env.site_packages;
    auto contents = scan_env(ctx, env);
    Json fws = Json::array();
    for (auto* reader : {read_torch, read_tensorflow, read_jax, read_cupy, read_onnxruntime, read_numba}) {
      auto fw = reader(ctx, contents);
      if (!fw.is_null()) fws.push_back(std::move(fw));
    }
    e["frameworks"] = fws;
    e["nvidia_wheels"] = wheels_json(contents);
    if (auto companions = companions_json(contents); !companions.empty()) e["torch_companions"] = companions;
    envs.push_back(std::move(e));
  }
  layer["environments"] = envs;
  return layer;
}

namespace {
// File-only, so it runs while the children do; --no-frameworks skips it.
const RegisterProbe kFrameworksProbe{{"frameworks", ProbeStage::kWhileChildrenRun, 0,
                                      [](const CollectOptions& o) { return o.frameworks; },
                                      [](const ProbeContext& ctx, const CollectOptions& o, const Json&) {
                                        return probe_frameworks(ctx, o.pythons);
                                      },
                                      true}};
}  // namespace

}  // namespace cudiag::probes
