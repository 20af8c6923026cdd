#include "probes/binaries_probe.h"

#include <string>
#include <vector>

#include "core/fsroot.h"
#include "probes/frameworks/framework_common.h"
#include "probes/probe_registry.h"

namespace cudiag::probes {

namespace {

std::string string_or(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// The instance's version as the libraries layer recorded it (a fact or a bare value).
Json version_of(const Json& inst) {
  const Json& v = inst.contains("version") ? inst["version"] : Json();
  const Json& value = v.is_object() ? (v.contains("value") ? v["value"] : Json()) : v;
  if (value.is_string()) return value;
  const Json& file = inst.contains("file_version") ? inst["file_version"] : Json();
  return file.is_string() ? file : Json(nullptr);
}

// cuDNN 9 is a shim: its kernels are in libcudnn_<part>.so.<major> in the
// same directory, which it dlopens through its RUNPATH $ORIGIN.
std::vector<std::string> components(const ProbeContext& ctx, const std::string& library,
                                    const std::string& path) {
  std::vector<std::string> out;
  if (library != "cudnn") return out;
  auto file = base_name(path);
  auto so = file.find(".so.");
  if (so == std::string::npos) return out;
  auto major = file.substr(so + 4, file.find('.', so + 4) - (so + 4));
  auto dir = dir_name(path);
  for (const auto& name : ctx.machine.root.list_dir(dir)) {
    if (name.starts_with("libcudnn_") && name.ends_with(".so." + major)) out.push_back(join_path(dir, name));
  }
  return out;
}

}  // namespace

Json probe_binaries(const ProbeContext& ctx, const Json& report) {
  Json libraries = Json::array();
  const Json& layer = report.contains("libraries") ? report["libraries"] : Json();
  if (layer.is_object()) {
    for (const auto& [key, lib] : layer.items()) {
      if (!lib.is_object() || !lib.contains("instances") || !lib["instances"].is_array()) continue;
      const Json& instances = lib["instances"];
      for (std::size_t i = 0; i < instances.size(); ++i) {
        const Json& inst = instances[i];
        auto path = string_or(inst, "path");
        if (path.empty() || inst.value("is_stub", false)) continue;
        auto real = string_or(inst, "real_path");
        Json j = Json::object();
        j["library"] = key;
        j["name"] = lib.value("name", key);
        j["instance"] = i;
        j["path"] = path;
        j["real_path"] = real.empty() ? path : real;
        j["version"] = version_of(inst);
        // What a program without RPATH gets for this soname.
        auto pick = ctx.search.loader_pick(base_name(path));
        auto picked = pick ? ctx.machine.root.resolve(*pick) : ResolveResult{};
        j["loader_pick"] = picked && *picked.path == j["real_path"].get<std::string>();
        Json files = Json::array();
        files.push_back(binary_json(ctx, path, true, true));
        for (const auto& c : components(ctx, key, path)) files.push_back(binary_json(ctx, c, true, true));
        j["files"] = std::move(files);
        libraries.push_back(std::move(j));
      }
    }
  }
  Json out = Json::object();
  out["libraries"] = std::move(libraries);
  return out;
}

namespace {
// Opt-in (--binaries, check --deep): ~140 ms of fatbin headers for a CUDA 13 lib64 (docs/ARCHITECTURE.md,
// "The binaries key"); after the children, because it reads the libraries layer.
const RegisterProbe kBinariesProbe{{"binaries", ProbeStage::kAfterChildren, 0,
                                    [](const CollectOptions& o) { return o.binaries; },
                                    [](const ProbeContext& ctx, const CollectOptions&, const Json& report) {
                                      return probe_binaries(ctx, report);
                                    },
                                    true}};
}  // namespace

}  // namespace cudiag::probes
