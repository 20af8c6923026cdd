// Rules for the `frameworks` layer about what the loader would give each
// framework: a needed CUDA library found nowhere, one that does not satisfy
// the framework's own pin or is shadowed by an older copy outside its
// environment, and environments mixing CUDA majors.

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/pep440.h"
#include "inspect/arch_compat.h"
#include "inspect/verdict.h"
#include "kb/knowledge_base.h"
#include "rules/arch_targets.h"
#include "rules/engine.h"
#include "rules/framework_support.h"
#include "rules/rule_support.h"

namespace cudiag::rules {

namespace {

// The wheel component that provides a library: cudnn -> "cudnn", cudart -> "cuda-runtime".
std::string component_of(const std::string& library) {
  if (library == "cudart") return "cuda-runtime";
  if (library == "nvrtc") return "cuda-nvrtc";
  if (library == "cupti") return "cuda-cupti";
  return library;
}

// The framework's own requirement on the wheel providing `library`.
const Json* requirement_for(const Json& fw, const std::string& library) {
  if (!fw.contains("requires")) return nullptr;
  auto comp = component_of(library);
  for (const auto& r : fw["requires"]) {
    auto name = r.value("name", "");
    if (name == "nvidia-" + comp ||
        (name.starts_with("nvidia-" + comp + "-cu") && name.size() <= comp.size() + 12))
      return &r;
  }
  return nullptr;
}

std::string version_of_load(const Json& load) {
  const Json& v = load.contains("version") ? load["version"] : Json();
  return v.is_object() && v["value"].is_string() ? v["value"].get<std::string>() : "";
}

}  // namespace

void framework_libraries(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  for (const auto& r : frameworks_in(report)) {
    const Json& loads = r.fw->contains("loads") ? (*r.fw)["loads"] : Json();
    if (!loads.is_array()) continue;
    for (std::size_t i = 0; i < loads.size(); ++i) {
      const auto& l = loads[i];
      auto lpath = fmt::format("{}.loads[{}]", r.path, i);
      auto soname = l.value("soname", "");
      auto library = l.value("library", "");
      if (l["path"].is_null()) {
        bool needed = l.value("how", "") == "DT_NEEDED";
        const Json* req = requirement_for(*r.fw, library);
        auto f = finding(
            "frameworks.library_not_found", needed ? Severity::kError : Severity::kWarning,
            {{"problem",
              needed
                  ? fmt::format(
                        "{} needs {} ({} of {}), and the loader finds none: the import fails with '{}: cannot open shared object file'",
                        label(r), soname, l.value("how", ""), l.value("needed_by", ""), soname)
                  : fmt::format("{} opens {} at run time and the loader finds none: it falls back to the CPU",
                                label(r), soname)},
             {"remedy",
              req ? fmt::format("pip install '{}{}' into this environment", (*req)["name"].get<std::string>(),
                                (*req)["spec"].get<std::string>())
                  : fmt::format(
                        "Install the library that provides {} (a nvidia-* wheel or the system package) or add its directory to LD_LIBRARY_PATH",
                        soname)}});
        f.evidence.push_back(
            evidence(lpath, l, "loader emulation (RPATH, LD_LIBRARY_PATH, RUNPATH, ld.so.cache, defaults)"));
        out.push_back(std::move(f));
        continue;
      }
      auto have = version_of_load(l);
      // Against the framework's own pin (Requires-Dist).
      if (const Json* req = requirement_for(*r.fw, library); req && !have.empty()) {
        auto spec = (*req)["spec"].get<std::string>();
        if (!spec.empty() && !version_satisfies(have, spec)) {
          auto have_v = Version::parse(have);
          bool major_differs = false;
          if (auto digits = spec.find_first_of("0123456789"); digits != std::string::npos && have_v)
            major_differs = std::atol(spec.c_str() + digits) != have_v->major();
          auto f = finding(
              "frameworks.library_version_mismatch", major_differs ? Severity::kError : Severity::kWarning,
              {{"problem", fmt::format("{} requires {}{} but would load {} {} from {} ({})", label(r),
                                       (*req)["name"].get<std::string>(), spec, soname, have,
                                       l.value("path", ""), l.value("via", ""))},
               {"remedy", fmt::format("pip install '{}{}' in this environment{}",
                                      (*req)["name"].get<std::string>(), spec,
                                      l.value("via", "") == "LD_LIBRARY_PATH"
                                          ? ", and drop the other copy's directory from LD_LIBRARY_PATH"
                                          : "")}});
          f.evidence.push_back(
              evidence(r.path + ".requires", *req, "Requires-Dist in the framework's METADATA"));
          f.evidence.push_back(evidence_from(report, lpath + ".version"));
          out.push_back(std::move(f));
        }
      }
      // Against the build record (TensorFlow's cudnn_version "9.3").
      if (library == "cudnn" && !have.empty()) {
        const Json& built = fw_value(report, r, "build.cudnn");
        auto bv = built.is_string() ? Version::parse(built.get<std::string>()) : std::nullopt;
        auto hv = Version::parse(have);
        if (bv && hv && bv->parts().size() >= 2 && hv->major() == bv->major() && hv->minor() < bv->minor()) {
          auto f = finding(
              "frameworks.library_version_mismatch", Severity::kWarning,
              {{"problem",
                fmt::format(
                    "{} was built with cuDNN {} but would load cuDNN {} from {}: cuDNN is backward- but not forward-compatible within a major",
                    label(r), bv->text(), have, l.value("path", ""))},
               {"remedy", fmt::format("Install cuDNN {} or newer (within {}.x)", bv->text(), bv->major())}});
          f.evidence.push_back(evidence_from(report, r.path + ".build.cudnn"));
          f.evidence.push_back(evidence_from(report, lpath + ".version"));
          out.push_back(std::move(f));
        }
      }
      // Shadowing: a copy from outside the environment while the environment has the wheel for it.
      if (!l.contains("wheel")) {
        const Json& wheels = r.env->contains("nvidia_wheels") ? (*r.env)["nvidia_wheels"] : Json();
        for (std::size_t w = 0; wheels.is_array() && w < wheels.size(); ++w) {
          const auto& wh = wheels[w];
          if (wh.value("component", "") != component_of(library) || wh["lib_dir"].is_null()) continue;
          auto soname_major = soname.substr(soname.rfind(".so.") + 4);
          if (wh["cuda_major"].is_number_integer() && library != "cudnn" && library != "nccl" &&
              library != "cusparse" && library != "cusolver" && library != "cufft" && library != "curand" &&
              std::to_string(wh["cuda_major"].get<long>()) != soname_major)
            continue;
          auto wv = wh["version"].value("value", "");
          auto hv = Version::parse(have);
          auto wvv = Version::parse(wv);
          bool older = hv && wvv && *hv < *wvv;
          auto f = finding(
              "frameworks.library_shadowed", older ? Severity::kError : Severity::kWarning,
              {{"framework", label(r)},
               {"soname", soname},
               {"version", have.empty() ? "(version unknown)" : have},
               {"path", l.value("path", "")},
               {"via", l.value("via", "")},
               {"wheel", wh.value("name", "")},
               {"wheel_version", wv},
               {"older",
                older
                    ? ": an older copy than the wheel's, which the framework's other libraries were built against (e.g. 'undefined symbol: __nvJitLinkAddData_12_x')"
                    : ""},
               {"remedy",
                l.value("via", "") == "LD_LIBRARY_PATH"
                    ? fmt::format("Remove {} from LD_LIBRARY_PATH when running this environment",
                                  dir_of(l.value("path", "")))
                    : fmt::format("Make the wheel's copy win: remove or upgrade {}", l.value("path", ""))}});
          f.evidence.push_back(evidence_from(report, lpath + ".version"));
          f.evidence.push_back(evidence(fmt::format("{}.nvidia_wheels[{}]", r.env_path, w), wh,
                                        "dist-info of " + wh.value("name", "")));
          out.push_back(std::move(f));
          break;
        }
      }
    }
  }
  (void)kb;
}

void framework_mixed_majors(const Json& report, const kb::KnowledgeBase&, std::vector<Finding>& out) {
  const Json& envs = value_at(report, "frameworks.environments");
  if (!envs.is_array()) return;
  for (std::size_t i = 0; i < envs.size(); ++i) {
    const auto& env = envs[i];
    std::map<long, std::vector<std::string>> by_major;
    std::vector<Evidence> ev;
    const Json& fws = env.value("frameworks", Json::array());
    for (std::size_t j = 0; j < fws.size(); ++j) {
      FwRef r{fmt::format("frameworks.environments[{}].frameworks[{}]", i, j), &fws[j], &env, ""};
      auto b = build_cuda(report, r);
      if (!b.major) continue;
      by_major[*b.major].push_back(label(r));
      ev.push_back(evidence_from(report, b.fact));
    }
    if (by_major.size() > 1) {
      std::string parts;
      for (const auto& [m, names] : by_major) {
        for (const auto& n : names) parts += fmt::format("{}{} (CUDA {})", parts.empty() ? "" : ", ", n, m);
      }
      auto f = finding("frameworks.mixed_cuda_majors",
                       {{"prefix", env.value("prefix", "?")}, {"frameworks", parts}});
      f.evidence = ev;
      out.push_back(std::move(f));
    }
    std::map<long, std::vector<std::string>> wheels;
    for (const auto& w : env.value("nvidia_wheels", Json::array())) {
      if (w["cuda_major"].is_number_integer())
        wheels[w["cuda_major"].get<long>()].push_back(w.value("name", ""));
    }
    if (wheels.size() > 1) {
      std::string parts;
      for (const auto& [m, names] : wheels)
        parts += fmt::format("{}CUDA {}: {}", parts.empty() ? "" : "; ", m, fmt::join(names, ", "));
      auto f =
          finding("frameworks.mixed_cuda_wheels", {{"prefix", env.value("prefix", "?")}, {"wheels", parts}});
      f.evidence.push_back(evidence(fmt::format("frameworks.environments[{}].nvidia_wheels", i),
                                    env["nvidia_wheels"], "dist-info directories"));
      out.push_back(std::move(f));
    }
  }
}

}  // namespace cudiag::rules
