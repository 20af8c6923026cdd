#include "probes/frameworks/framework_readers.h"

#include <algorithm>
#include <regex>

#include "core/fact.h"
#include "core/version.h"
#include "probes/frameworks/framework_common.h"
#include "probes/frameworks/framework_files.h"

namespace cudiag::probes {

namespace {

// torch/version.py and build_info.py are a few hundred bytes.
constexpr std::size_t kPyFileLimit = 256 * 1024;

std::optional<std::map<std::string, Json>> read_py(const FsRoot& root, const std::string& path,
                                                   bool key_values) {
  auto text = root.read_file(path, kPyFileLimit);
  if (!text) return std::nullopt;
  return key_values ? parse_python_key_values(*text.data) : parse_python_assignments(*text.data);
}

Json value_or_null(const std::map<std::string, Json>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? Json(nullptr) : it->second;
}

// "12.5.1" -> 12; "12" -> 12; 0 when not a version.
long major_of(const Json& v) {
  if (v.is_number_integer()) return v.get<long>();
  if (!v.is_string()) return 0;
  auto s = v.get<std::string>();
  try {
    return s.empty() || !std::isdigit(static_cast<unsigned char>(s[0])) ? 0 : std::stol(s);
  } catch (...) {
    return 0;
  }
}

Json base_entry(const std::string& name, const InstalledDist* d) {
  Json j = Json::object();
  j["name"] = name;
  if (d) {
    auto dj = dist_json(*d);
    for (auto& [k, v] : dj.items()) j[k] = v;
    j["requires"] = cuda_requirements_json(d->dist);
  } else {
    j["requires"] = Json::array();
  }
  return j;
}

}  // namespace

const InstalledDist* EnvContents::find(const std::string& normalized_name) const {
  for (const auto& d : dists) {
    if (d.dist.name == normalized_name) return &d;
  }
  return nullptr;
}

std::string EnvContents::locate(const FsRoot& root, const std::string& relative) const {
  for (const auto& sp : site_packages) {
    if (root.exists(join_path(sp, relative))) return sp;
  }
  return "";
}

bool is_framework_related(const std::string& n) {
  static const std::vector<std::string> exact = {
      "torch",  "tensorflow", "tensorflow-cpu", "tensorflow-gpu",  "tf-nightly", "jax",
      "jaxlib", "cupy",       "onnxruntime",    "onnxruntime-gpu", "numba",      "numba-cuda"};
  if (std::find(exact.begin(), exact.end(), n) != exact.end()) return true;
  for (const char* companion : kTorchCompanions)
    if (n == companion) return true;
  return n.starts_with("nvidia-") || n.starts_with("jax-cuda") || n.starts_with("cupy-cuda");
}

NvidiaWheel nvidia_wheel_of(const FsRoot& root, const InstalledDist& d) {
  NvidiaWheel w;
  w.name = d.dist.name;
  w.version = d.dist.version;
  w.metadata_path = d.dist.metadata_path;
  std::string stem = w.name.substr(7);  // after "nvidia-"
  static const std::regex suffix("-cu([0-9]+)$");
  std::smatch m;
  if (std::regex_search(stem, m, suffix)) {
    w.cuda_major = std::stol(m[1]);
    stem = stem.substr(0, m.position(0));
  }
  w.component = stem;
  std::string dir = stem;
  std::replace(dir.begin(), dir.end(), '-', '_');
  if (w.cuda_major == 0) {
    // CUDA 13 toolkit wheels drop the suffix and share nvidia/cu13/lib.
    auto v = Version::parse(w.version);
    w.cuda_major = v ? v->major() : 0;
    if (w.cuda_major >= 13 || root.is_dir(join_path(d.site_packages, "nvidia/cu13/lib"))) dir = "cu13";
  }
  auto lib = join_path(d.site_packages, "nvidia/" + dir + "/lib");
  if (root.is_dir(lib)) w.lib_dir = lib;
  return w;
}

Json read_torch(const ProbeContext& ctx, const EnvContents& env) {
  const auto* d = env.find("torch");
  auto sp = d ? d->site_packages : env.locate(ctx.machine.root, "torch/version.py");
  if (sp.empty() || !ctx.machine.root.is_dir(join_path(sp, "torch"))) return nullptr;
  Json j = base_entry("torch", d);
  if (!d) j["location"] = sp;
  auto vpath = join_path(sp, "torch/version.py");
  auto src = file_source(vpath);
  Json build = Json::object();
  if (auto v = read_py(ctx.machine.root, vpath, false)) {
    build["version"] = fact(value_or_null(*v, "__version__"), src);
    build["cuda"] = fact(value_or_null(*v, "cuda"), src);
    build["hip"] = fact(value_or_null(*v, "hip"), src);
    build["git_version"] = fact(value_or_null(*v, "git_version"), src);
    bool cpu = value_or_null(*v, "cuda").is_null() && value_or_null(*v, "hip").is_null();
    build["cpu_only"] = fact(cpu, src);
    build["cuda_major"] = fact(
        major_of(value_or_null(*v, "cuda")) ? Json(major_of(value_or_null(*v, "cuda"))) : Json(nullptr), src);
  } else {
    build["cuda"] = unknown_fact(src, "torch/version.py could not be read");
  }
  if (d) build["local_tag"] = fact(local_version_tag(d->dist.version), file_source(d->dist.metadata_path));
  j["build"] = build;
  Json binaries = Json::array();
  auto lib = join_path(sp, "torch/lib");
  auto loader = make_loader(ctx);
  // torch/__init__.py loads libtorch_global_deps.so first (RTLD_GLOBAL); its
  // RPATH names the nvidia wheel directories, so what it pulls in is what
  // libtorch_cuda.so later finds already loaded. libtorch_cpu.so, loaded with
  // torch._C, needs CUPTI (the profiler) in CUDA builds.
  for (const char* name : {"libtorch_global_deps.so", "libtorch_cpu.so", "libtorch_cuda.so",
                           "libtorch_cuda_cu.so", "libtorch_cuda_cpp.so", "libc10_cuda.so"}) {
    auto path = join_path(lib, name);
    if (!ctx.machine.root.is_regular_file(path)) continue;
    bool archs = std::string_view(name).starts_with("libtorch_cuda");
    // Each file's dynamic section is read once, for the report and the loader.
    if (archs) {
      binaries.push_back(binary_json(ctx, path, true, true));
      loader.load(dynamic_object_of(path, binaries.back()));
    } else {
      auto obj = read_dynamic_object(ctx.machine.root, path);
      binaries.push_back(binary_json(obj));
      loader.load(obj);
    }
  }
  j["binaries"] = binaries;
  j["loads"] = resolved_json(ctx, env, loader);
  return j;
}

Json read_tensorflow(const ProbeContext& ctx, const EnvContents& env) {
  const InstalledDist* d = nullptr;
  for (const char* n : {"tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly"}) {
    if ((d = env.find(n))) break;
  }
  auto sp = d ? d->site_packages : env.locate(ctx.machine.root, "tensorflow/python/platform/build_info.py");
  if (sp.empty() || !ctx.machine.root.is_dir(join_path(sp, "tensorflow"))) return nullptr;
  Json j = base_entry("tensorflow", d);
  if (!d) j["location"] = sp;
  auto bpath = join_path(sp, "tensorflow/python/platform/build_info.py");
  auto src = file_source(bpath);
  Json build = Json::object();
  long cuda_major = 0, cudnn_major = 0;
  if (auto b = read_py(ctx.machine.root, bpath, true)) {
    auto cuda = value_or_null(*b, "cuda_version");
    if (cuda.is_null()) cuda = value_or_null(*b, "cuda_version_number");  // TF <= 2.3
    auto cudnn = value_or_null(*b, "cudnn_version");
    if (cudnn.is_null()) cudnn = value_or_null(*b, "cudnn_version_number");
    auto is_cuda = value_or_null(*b, "is_cuda_build");
    build["cuda"] = fact(cuda, src);
    build["cudnn"] = fact(cudnn, src);
    build["is_cuda_build"] = fact(is_cuda, src);
    build["is_rocm_build"] = fact(value_or_null(*b, "is_rocm_build"), src);
    build["cuda_compute_capabilities"] = fact(value_or_null(*b, "cuda_compute_capabilities"), src);
    build["cpu_only"] =
        fact(is_cuda.is_boolean() ? Json(!is_cuda.get<bool>() && value_or_null(*b, "is_rocm_build") != true)
                                  : Json(nullptr),
             src);
    cuda_major = major_of(cuda);
    cudnn_major = major_of(cudnn);
    build["cuda_major"] = fact(cuda_major ? Json(cuda_major) : Json(nullptr), src);
  } else {
    build["cuda"] = unknown_fact(src, "build_info.py could not be read");
  }
  j["build"] = build;
  Json binaries = Json::array();
  auto loader = make_loader(ctx);
  // TensorFlow dlopens the CUDA libraries by soname from libtensorflow_framework
  // (tsl's dso_loader), so that object's RPATH/RUNPATH applies.
  for (const char* name :
       {"tensorflow/libtensorflow_framework.so.2", "tensorflow/python/_pywrap_tensorflow_internal.so"}) {
    auto path = join_path(sp, name);
    if (!ctx.machine.root.is_regular_file(path)) continue;
    auto obj = read_dynamic_object(ctx.machine.root, path);
    binaries.push_back(binary_json(obj));
    if (cuda_major > 0) {
      for (const char* lib : {"libcudart.so.", "libcublas.so.", "libcublasLt.so."})
        loader.dlopen_from(obj, lib + std::to_string(cuda_major));
      if (cudnn_major > 0) loader.dlopen_from(obj, "libcudnn.so." + std::to_string(cudnn_major));
    }
    break;
  }
  j["binaries"] = binaries;
  j["loads"] = resolved_json(ctx, env, loader);
  return j;
}

Json read_jax(const ProbeContext& ctx, const EnvContents& env) {
  const auto* jaxlib = env.find("jaxlib");
  if (!jaxlib) return nullptr;
  Json j = base_entry("jax", jaxlib);
  if (const auto* jax = env.find("jax")) j["jax_version"] = dist_json(*jax)["version"];
  Json plugins = Json::array();
  long cuda_major = 0;
  for (const auto& d : env.dists) {
    if (!d.dist.name.starts_with("jax-cuda")) continue;
    Json p = dist_json(d);
    p["requires"] = cuda_requirements_json(d.dist);
    // jax-cuda12-plugin, jax-cuda13-pjrt
    long m = std::atol(d.dist.name.c_str() + 8);
    p["cuda_major"] = m;
    if (m > cuda_major) cuda_major = m;
    plugins.push_back(p);
  }
  j["plugins"] = plugins;
  Json build = Json::object();
  build["cpu_only"] = fact(plugins.empty(), "installed distributions in " + jaxlib->site_packages);
  build["cuda_major"] =
      fact(cuda_major ? Json(cuda_major) : Json(nullptr), "jax-cuda*-plugin distribution name");
  j["build"] = build;
  // jax_plugins/xla_cudaNN/__init__.py (_load_nvidia_libraries) preloads
  // these from their nvidia wheels when installed; the plugin itself dlopens
  // the essential ones (`true`) at start-up through the loader's search, and
  // falls back to the CPU when one is missing.
  auto loader = make_loader(ctx);
  if (cuda_major > 0) {
    auto plugin = join_path(jaxlib->site_packages,
                            "jax_plugins/xla_cuda" + std::to_string(cuda_major) + "/xla_cuda_plugin.so");
    DynamicObject caller;
    caller.path = plugin;
    if (ctx.machine.root.is_regular_file(plugin)) caller = read_dynamic_object(ctx.machine.root, plugin);
    auto sm = std::to_string(cuda_major);
    bool cu12 = cuda_major < 13;
    const std::vector<std::pair<std::string, bool>> preloads = {
        {"libcudart.so." + sm, true},
        {"libnvrtc.so." + sm, false},
        {"libcublas.so." + sm, true},
        {"libcublasLt.so." + sm, false},
        {"libnccl.so.2", true},
        {"libcupti.so." + sm, false},
        {"libcusparse.so.12", false},
        {cu12 ? "libcusolver.so.11" : "libcusolver.so.12", false},
        {cu12 ? "libcufft.so.11" : "libcufft.so.12", false},
        {"libnvshmem_host.so.3", false},
        {"libcudnn.so.9", true}};
    for (const auto& [soname, essential] : preloads) {
      auto comp = wheel_component_for(cuda_library_of(soname));
      // The preload is a dlopen by path, and a soname loaded that way
      // satisfies every later request: modelled as a dlopen from a caller
      // whose RPATH is the wheel's directory.
      DynamicObject from = caller;
      bool from_wheel = false;
      for (const auto& w : env.nvidia_wheels) {
        if (w.component == comp && w.cuda_major == cuda_major && !w.lib_dir.empty() &&
            ctx.machine.root.is_regular_file(join_path(w.lib_dir, soname))) {
          from.rpath = {w.lib_dir};
          from.runpath.clear();
          from_wheel = true;
          break;
        }
      }
      if (essential || from_wheel) loader.dlopen_from(from, soname);
    }
  }
  j["loads"] = resolved_json(ctx, env, loader);
  return j;
}

Json read_cupy(const ProbeContext& ctx, const EnvContents& env) {
  for (const auto& d : env.dists) {
    if (d.dist.name != "cupy" && !d.dist.name.starts_with("cupy-cuda")) continue;
    Json j = base_entry("cupy", &d);
    Json build = Json::object();
    // cupy-cuda12x -> 12; cupy-cuda11x -> 11; older cupy-cuda102 -> 10.
    long major = 0;
    if (d.dist.name.starts_with("cupy-cuda")) {
      auto digits = d.dist.name.substr(9);
      major = std::atol(digits.c_str());
      if (major >= 100) major /= 10;
    }
    build["cuda_major"] = fact(major ? Json(major) : Json(nullptr), "distribution name " + d.dist.name);
    build["cpu_only"] = fact(false, "distribution name " + d.dist.name);
    j["build"] = build;
    (void)ctx;
    return j;
  }
  return nullptr;
}

Json read_onnxruntime(const ProbeContext& ctx, const EnvContents& env) {
  const auto* gpu = env.find("onnxruntime-gpu");
  const auto* cpu = env.find("onnxruntime");
  const auto* d = gpu ? gpu : cpu;
  if (!d) return nullptr;
  Json j = base_entry("onnxruntime", d);
  // Both install the one onnxruntime/ module: the last installed wins, often without the CUDA provider.
  if (gpu && cpu)
    j["conflicting_packages"] =
        fact(Json::array({"onnxruntime", "onnxruntime-gpu"}), "dist-info of both in " + d->site_packages);
  auto provider = join_path(d->site_packages, "onnxruntime/capi/libonnxruntime_providers_cuda.so");
  Json build = Json::object();
  bool has_cuda = ctx.machine.root.is_regular_file(provider);
  build["cpu_only"] = fact(!has_cuda, "presence of " + provider);
  auto info_path = join_path(d->site_packages, "onnxruntime/capi/build_and_package_info.py");
  long cuda_major = 0;
  if (auto info = read_py(ctx.machine.root, info_path, false)) {
    auto cuda = value_or_null(*info, "cuda_version");
    build["cuda"] = fact(cuda, file_source(info_path));
    cuda_major = major_of(cuda);
  }
  Json binaries = Json::array();
  auto loader = make_loader(ctx);
  if (has_cuda) {
    auto obj = read_dynamic_object(ctx.machine.root, provider);
    binaries.push_back(binary_json(obj));
    for (const auto& n : obj.needed) {
      if (n.starts_with("libcudart.so.") && !cuda_major) cuda_major = std::atol(n.c_str() + 13);
      if (n.starts_with("libcudnn.so."))
        build["cudnn_major"] = fact(std::atol(n.c_str() + 12), "DT_NEEDED of " + provider);
    }
    loader.load(obj);
  }
  build["cuda_major"] = fact(cuda_major ? Json(cuda_major) : Json(nullptr),
                             has_cuda ? "DT_NEEDED of " + provider : "no CUDA provider");
  j["build"] = build;
  j["binaries"] = binaries;
  j["loads"] = resolved_json(ctx, env, loader);
  return j;
}

Json read_numba(const ProbeContext& ctx, const EnvContents& env) {
  const auto* d = env.find("numba-cuda");
  const auto* numba = env.find("numba");
  if (!d && !numba) return nullptr;
  Json j = base_entry(d ? "numba-cuda" : "numba", d ? d : numba);
  if (d && numba) j["numba_version"] = dist_json(*numba)["version"];
  (void)ctx;
  return j;
}

}  // namespace cudiag::probes
