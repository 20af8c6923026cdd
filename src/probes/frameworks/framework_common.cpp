#include "probes/frameworks/framework_common.h"

#include <algorithm>
#include <set>

#include "core/fact.h"
#include "inspect/inspect.h"

namespace cudiag::probes {

namespace {

Json string_array(const std::vector<std::string>& v) {
  Json a = Json::array();
  for (const auto& s : v) a.push_back(s);
  return a;
}

// "libcudnn_ops.so.9" -> "libcudnn_ops.so": the prefix file versions follow.
std::string so_prefix(const std::string& soname) {
  auto pos = soname.find(".so");
  return pos == std::string::npos ? soname : soname.substr(0, pos + 3);
}

// The answer-cache entry of a shared object's dynamic section and fatbin targets.
constexpr const char* kFatbinAnswer = "fatbin architectures";

}  // namespace

std::string wheel_component_for(const std::string& library) {
  if (library == "cudart") return "cuda-runtime";
  if (library == "nvrtc") return "cuda-nvrtc";
  if (library == "cupti") return "cuda-cupti";
  return library;
}

Json dist_json(const InstalledDist& d) {
  Json j = Json::object();
  j["package"] = d.dist.name;
  auto src = file_source(d.dist.metadata_path);
  j["version"] = d.dist.error.empty() ? fact(d.dist.version, src) : unknown_fact(src, d.dist.error);
  if (!d.dist.error.empty() && !d.dist.version.empty())
    j["version"]["value"] = d.dist.version;  // from the directory name
  j["location"] = d.site_packages;
  return j;
}

Json cuda_requirements_json(const machine::Distribution& d) {
  Json a = Json::array();
  for (const auto& r : d.requires_dist) {
    if (!r.name.starts_with("nvidia-") && !r.name.starts_with("cuda-") && !r.name.starts_with("jax-cuda") &&
        !r.name.starts_with("cupy-cuda"))
      continue;
    Json j = Json::object();
    j["name"] = r.name;
    j["spec"] = r.spec;
    if (!r.extra.empty()) j["extra"] = r.extra;
    if (!r.marker.empty()) j["marker"] = r.marker;
    a.push_back(j);
  }
  return a;
}

std::string local_version_tag(const std::string& version) {
  auto plus = version.find('+');
  return plus == std::string::npos ? "" : version.substr(plus + 1);
}

Json binary_json(const ProbeContext& ctx, const std::string& path, bool architectures, bool remember) {
  Json j = Json::object();
  j["path"] = path;
  auto real = ctx.machine.root.resolve(path);
  if (!real) {
    j["error"] = real.error;
    return j;
  }
  if (!architectures) {
    auto obj = read_dynamic_object(ctx.machine.root, path);
    if (!obj.error.empty()) j["error"] = obj.error;
    j["needed"] = string_array(obj.needed);
    j["rpath"] = string_array(obj.rpath);
    j["runpath"] = string_array(obj.runpath);
    return j;
  }
  // Headers only, yet a 1 GB libtorch_cuda.so costs a walk over ~3000 fatbin
  // entry headers (~10 ms warm, a page fault each): what an unchanged file
  // said is remembered per file identity (core/answer_cache.h).
  auto host = ctx.machine.root.host_path(*real.path);
  if (remember && ctx.answers) {
    auto known = ctx.answers->find(kFatbinAnswer, host);
    // A remembered answer of another shape (a damaged cache) is a miss.
    auto strings = [&](const char* k) {
      if (!known->contains(k)) return true;
      const auto& a = (*known)[k];
      return a.is_array() && std::all_of(a.begin(), a.end(), [](const Json& e) { return e.is_string(); });
    };
    if (known && !(strings("needed") && strings("rpath") && strings("runpath") &&
                   (!known->contains("architectures") || (*known)["architectures"].is_object())))
      known.reset();
    if (known) {
      for (const char* key : {"needed", "rpath", "runpath", "architectures"}) {
        if (known->contains(key)) j[key] = (*known)[key];
      }
      if (j.contains("architectures")) j["architectures"]["source"] = "fatbin headers of " + path;
      return j;
    }
  }
  auto r = inspect::inspect_file(host);
  if (!r.error.empty()) j["error"] = r.error;
  j["needed"] = string_array(r.needed);
  j["rpath"] = string_array(r.rpath);
  j["runpath"] = string_array(r.runpath);
  std::set<std::string> sass_seen;
  std::set<std::string> ptx_seen;
  Json sass = Json::array();
  Json ptx = Json::array();
  for (const auto& e : r.entries) {
    if (e.kind == inspect::EntryKind::kSass) {
      auto name = inspect::sm_name(e.arch);
      if (sass_seen.insert(name).second) sass.push_back(name);
    } else if (e.kind == inspect::EntryKind::kPtx) {
      auto name = inspect::compute_name(e.arch);
      if (!ptx_seen.insert(name).second) continue;
      Json p = Json::object();
      p["arch"] = name;
      auto isa = e.ptx_isa();
      p["ptx_isa"] = isa ? Json(isa->text()) : Json(nullptr);
      ptx.push_back(p);
    }
  }
  Json archs = Json::object();
  archs["sass"] = sass;
  archs["ptx"] = ptx;
  archs["source"] = "fatbin headers of " + path;
  j["architectures"] = archs;
  if (remember && r.error.empty() && ctx.answers) ctx.answers->remember(kFatbinAnswer, host, j);
  return j;
}

Json binary_json(const DynamicObject& obj) {
  Json j = Json::object();
  j["path"] = obj.path;
  if (!obj.error.empty()) j["error"] = obj.error;
  j["needed"] = string_array(obj.needed);
  j["rpath"] = string_array(obj.rpath);
  j["runpath"] = string_array(obj.runpath);
  return j;
}

DynamicObject dynamic_object_of(const std::string& path, const Json& binary) {
  DynamicObject obj;
  obj.path = path;
  auto strings = [&binary](const char* key) {
    std::vector<std::string> out;
    for (const auto& s : binary.value(key, Json::array()))
      if (s.is_string()) out.push_back(s.get<std::string>());
    return out;
  };
  obj.needed = strings("needed");
  obj.rpath = strings("rpath");
  obj.runpath = strings("runpath");
  if (binary.contains("error") && binary["error"].is_string()) obj.error = binary["error"].get<std::string>();
  return obj;
}

LoaderEmulation make_loader(const ProbeContext& ctx) {
  return LoaderEmulation(ctx.machine.root, ctx.search, ctx.machine.env.list("LD_LIBRARY_PATH"));
}

Json resolved_json(const ProbeContext& ctx, const EnvContents& env, const LoaderEmulation& loader) {
  Json a = Json::array();
  // Each wheel's library directory with its symlinks followed, once.
  std::vector<std::string> wheel_dirs;
  for (const auto& w : env.nvidia_wheels) {
    auto wdir = w.lib_dir.empty() ? ResolveResult{} : ctx.machine.root.resolve(w.lib_dir);
    wheel_dirs.push_back(wdir ? *wdir.path : "");
  }
  for (const auto& r : loader.resolved()) {
    Json j = Json::object();
    j["soname"] = r.soname;
    j["library"] = r.library;
    j["needed_by"] = r.needed_by;
    j["how"] = r.how;
    if (r.path.empty()) {
      j["path"] = nullptr;
      j["via"] = "not found";
      a.push_back(j);
      continue;
    }
    j["path"] = r.path;
    j["via"] = r.via;
    Json version = nullptr;
    std::string version_source;
    auto dir = dir_name(r.real_path);
    for (std::size_t i = 0; i < env.nvidia_wheels.size(); ++i) {
      const auto& w = env.nvidia_wheels[i];
      if (wheel_dirs[i].empty() || wheel_dirs[i] != dir) continue;
      // nvidia/cu13/lib is shared by several wheels: the library names its wheel.
      if (base_name(dir_name(dir)) == "cu13" && w.component != wheel_component_for(r.library)) continue;
      version = w.version;
      version_source = file_source(w.metadata_path);
      j["wheel"] = w.name;
      break;
    }
    if (version.is_null()) {
      auto v = machine::version_from_file_name(base_name(r.real_path), so_prefix(r.soname));
      if (!v.empty()) {
        version = v;
        version_source = "file name " + r.real_path;
      }
    }
    j["version"] = version.is_null() ? unknown_fact("file name " + r.real_path,
                                                    "the file name carries only the soname's major")
                                     : fact(version, version_source);
    a.push_back(j);
  }
  return a;
}

}  // namespace cudiag::probes
