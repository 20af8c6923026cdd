#include "report/assume_layers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "core/errors.h"
#include "core/version.h"
#include "kb/framework_matrix.h"
#include "kb/torch_arch_list.h"
#include "report/assumed_fact.h"

namespace cudiag::report {

namespace {

using assume_support::array_at;
using assume_support::assumed;
using assume_support::assumed_version;
using assume_support::object_at;

const Json& value_of(const Json& parent, const char* key) {
  static const Json null_json;
  if (!parent.is_object() || !parent.contains(key)) return null_json;
  const Json& f = parent[key];
  return f.is_object() && f.contains("value") ? f["value"] : f;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<bool> yes_no(const std::string& value) {
  auto v = lower(value);
  if (v == "yes" || v == "true" || v == "1" || v == "on") return true;
  if (v == "no" || v == "false" || v == "0" || v == "off" || v == "none") return false;
  return std::nullopt;
}

bool yes_no_or_throw(const std::string& key, const std::string& value) {
  auto b = yes_no(value);
  if (!b) throw InputError(fmt::format("--assume {}={}: expected yes or no", key, value));
  return *b;
}

// --- frameworks -----------------------------------------------------------

struct Build {
  std::string name;
  Json cuda = nullptr;        // "12.1"
  Json cuda_major = nullptr;  // 12
  Json cpu_only = nullptr;    // true / false / unknown
  std::string local_tag;
  Json architectures = nullptr;  // ["sm_50", ..., "compute_120"]: the wheel's TORCH_CUDA_ARCH_LIST
};

// The knowledge base's architecture list of a torch release's wheel for one CUDA variant
// ("5.0;6.0;...;12.0+PTX" -> sm_50 ... sm_120, compute_120); null when the matrix has none.
Json torch_architectures(const kb::KnowledgeBase& kb, const Version& release, const Json& cuda) {
  const Json* row = kb::framework_matrix_row(kb, "torch", release.text());
  if (!cuda.is_string() || !row || !row->contains("arch_lists")) return nullptr;
  const Json& lists = (*row)["arch_lists"];
  // A knowledge base given with --kb may hold anything here: only a string is an arch list.
  if (!lists.is_object() || !lists.contains(cuda.get<std::string>()) ||
      !lists[cuda.get<std::string>()].is_string())
    return nullptr;
  Json out = Json::array();
  for (const auto& a : kb::parse_torch_arch_list(lists[cuda.get<std::string>()].get<std::string>())) {
    auto digits = fmt::format("{}{}", a.cc.major(), a.cc.minor());
    out.push_back("sm_" + digits);
    if (a.ptx) out.push_back("compute_" + digits);
  }
  return out;
}

void set_cuda(Build& b, const std::string& cuda) {
  b.cuda = cuda;
  auto v = Version::parse(cuda);
  if (v) b.cuda_major = v->major();
  b.cpu_only = false;
}

// "cu121" -> "12.1", "cu118" -> "11.8", "cu92" -> "9.2".
std::optional<std::string> cu_tag(const std::string& tag) {
  if (!tag.starts_with("cu") || tag.size() < 4) return std::nullopt;
  auto digits = tag.substr(2);
  if (!std::all_of(digits.begin(), digits.end(),
                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  return digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
}

// The framework a key names, or "" when it is none: torch, tensorflow,
// tensorflow-cpu, jax, jaxlib, jax[cuda12], cupy-cuda12x, onnxruntime(-gpu).
std::optional<Build> framework_build(const std::string& key_in, const Version& v, const std::string& tag,
                                     const kb::KnowledgeBase& kb) {
  std::string key = lower(key_in);
  std::replace(key.begin(), key.end(), '_', '-');
  Build b;
  b.local_tag = tag;
  if (key == "torch" || key == "pytorch") {
    b.name = "torch";
    if (tag == "cpu") {
      b.cpu_only = true;
    } else if (auto cuda = cu_tag(tag)) {
      set_cuda(b, *cuda);
    } else if (tag.starts_with("rocm")) {
      b.cpu_only = false;
    } else if (tag.empty()) {
      // A plain version from PyPI on Linux is the release's default CUDA build.
      const Json* row = kb::framework_matrix_row(kb, "torch", v.text());
      if (row && row->contains("pypi_default") && (*row)["pypi_default"].contains("cuda"))
        set_cuda(b, (*row)["pypi_default"]["cuda"].get<std::string>());
    }
    b.architectures = torch_architectures(kb, v, b.cuda);
    return b;
  }
  if (key == "tensorflow" || key == "tensorflow-gpu" || key == "tf" || key == "tensorflow-cpu") {
    b.name = "tensorflow";
    if (key == "tensorflow-cpu" || tag == "cpu") {
      b.cpu_only = true;
      return b;
    }
    const Json* row = kb::framework_matrix_row(kb, "tensorflow", v.text());
    if (row && row->contains("cuda_variants") && !(*row)["cuda_variants"].empty())
      set_cuda(b, (*row)["cuda_variants"][0].get<std::string>());
    return b;
  }
  if (key == "jax" || key == "jaxlib" || key.starts_with("jax[") || key.starts_with("jax-cuda")) {
    b.name = "jax";
    std::string marker = key.find("cuda") != std::string::npos ? key : tag;
    auto at = marker.find("cuda");
    if (at != std::string::npos) {
      long major = std::atol(marker.c_str() + at + 4);
      if (major <= 0) throw InputError(fmt::format("--assume {}: which CUDA major (cuda12)?", key_in));
      b.cuda_major = major;
      b.cpu_only = false;
    } else {
      b.cpu_only = true;  // jaxlib from PyPI without a CUDA plugin runs on the CPU only
    }
    return b;
  }
  if (key == "cupy" || key.starts_with("cupy-cuda")) {
    b.name = "cupy";
    if (key.starts_with("cupy-cuda")) {
      auto digits = key.substr(9);
      long major = std::atol(digits.c_str());
      // cupy-cuda12x, cupy-cuda11x; the old per-release names: cupy-cuda102, cupy-cuda117.
      if (major >= 100) major /= 10;
      if (major > 20) major /= 10;
      if (major <= 0) throw InputError(fmt::format("--assume {}: which CUDA (cupy-cuda12x)?", key_in));
      b.cuda_major = major;
    }
    b.cpu_only = false;
    return b;
  }
  if (key == "onnxruntime" || key == "onnxruntime-gpu") {
    b.name = "onnxruntime";
    if (key == "onnxruntime") {
      b.cpu_only = true;  // the CPU package: no CUDA execution provider
      return b;
    }
    b.cpu_only = false;
    const Json* row = kb::framework_matrix_row(kb, "onnxruntime", v.text());
    if (row && row->contains("cuda_major")) b.cuda_major = (*row)["cuda_major"];
    return b;
  }
  return std::nullopt;
}

Json& assumed_environment(Json& report) {
  Json& envs = array_at(object_at(report, "frameworks"), "environments");
  for (auto& e : envs) {
    if (e.value("kind", "") == "assumed") return e;
  }
  Json env = Json::object();
  env["prefix"] = "(assumed environment)";
  env["kind"] = "assumed";
  env["frameworks"] = Json::array();
  envs.push_back(std::move(env));
  return envs.back();
}

// torchvision=0.19.0: a package whose compiled ops are built against one torch release, beside torch
// in the stated environment (the frameworks probe's torch_companions).
void assume_torch_companion(Json& report, const std::string& key, const std::string& value) {
  std::string ver = value.substr(0, value.find('+'));
  if (!Version::parse(ver))
    throw InputError(fmt::format("--assume {}={}: not a version (e.g. 0.19.0)", key, value));
  object_at(assumed_environment(report), "torch_companions")[key] = assumed(ver, key);
}

bool assume_framework(Json& report, const std::string& key, const std::string& value,
                      const kb::KnowledgeBase& kb) {
  auto plus = value.find('+');
  std::string ver = value.substr(0, plus);
  std::string tag = plus == std::string::npos ? "" : lower(value.substr(plus + 1));
  auto v = Version::parse(ver);
  // A key that is no framework falls through to the other keys before the version is judged.
  auto b = v ? framework_build(key, *v, tag, kb) : framework_build(key, Version(), tag, kb);
  if (!b) return false;
  if (!v) throw InputError(fmt::format("--assume {}={}: not a version (e.g. 2.1.0+cu121)", key, value));
  Json fw = Json::object();
  fw["name"] = b->name;
  fw["version"] = assumed(ver, key);
  Json build = Json::object();
  build["version"] = assumed(ver, key);
  build["cuda"] = assumed(b->cuda, key);
  build["cuda_major"] = assumed(b->cuda_major, key);
  build["cpu_only"] = assumed(b->cpu_only, key);
  if (!b->local_tag.empty()) build["local_tag"] = assumed(b->local_tag, key);
  // torch/version.py's hip: the ROCm release of a +rocmX.Y build.
  if (b->local_tag.starts_with("rocm")) build["hip"] = assumed(b->local_tag.substr(4), key);
  if (!b->architectures.is_null()) build["cuda_compute_capabilities"] = assumed(b->architectures, key);
  fw["build"] = std::move(build);
  fw["package"] = lower(key);
  Json& fws = array_at(assumed_environment(report), "frameworks");
  for (auto& existing : fws) {
    if (existing.value("name", "") != b->name) continue;
    // onnxruntime and onnxruntime-gpu both stated: both installed, the GPU build described.
    auto other = existing.value("package", "");
    if (b->name == "onnxruntime" && !other.empty() && other != lower(key)) {
      Json& kept = other == "onnxruntime-gpu" ? existing : fw;
      kept["conflicting_packages"] = assumed(Json::array({"onnxruntime", "onnxruntime-gpu"}), key);
      if (&kept == &existing) return true;
    }
    existing = std::move(fw);
    return true;
  }
  fws.push_back(std::move(fw));
  return true;
}

// --- kernel module, device nodes, GPUs, user-space driver -----------------

// The user-space driver and the module disagree: the "driver/library version mismatch" state.
void recompute_mismatch(Json& report) {
  if (!report.contains("driver_api") || !report.contains("kernel_driver")) return;
  const Json& kmod = value_of(report["kernel_driver"], "version");
  const Json& user = value_of(report["driver_api"], "library_version");
  if (!kmod.is_string() || !user.is_string()) return;
  report["driver_api"]["kernel_module_mismatch"] = assumed(kmod != user, "userspace_driver");
}

void assume_kernel_module(Json& report, const std::string& key, const std::string& value) {
  Json& kd = object_at(report, "kernel_driver");
  auto v = lower(value);
  if (v == "loaded" || v == "yes") {
    object_at(kd, "modules")["nvidia"] = assumed(true, key);
  } else if (v == "not_loaded" || v == "not-loaded" || v == "no" || v == "missing" || v == "none") {
    Json f = assumed(nullptr, key);
    f["error"] = "the NVIDIA kernel module is not loaded (stated)";
    kd["version"] = std::move(f);
    object_at(kd, "modules")["nvidia"] = assumed(false, key);
  } else {
    auto ver = assumed_version(key, value);
    if (ver.major() < 100)
      throw InputError(
          fmt::format("--assume {}={}: expected loaded, not_loaded or a driver release", key, value));
    kd["version"] = assumed(ver.text(), key);
    object_at(kd, "modules")["nvidia"] = assumed(true, key);
    recompute_mismatch(report);
  }
}

Json assumed_gpu_entry(const std::string& key, std::size_t index) {
  Json gpu = Json::object();
  gpu["bus_id"] = assumed(fmt::format("assume:{}", index), key);
  gpu["kind"] = "gpu";
  gpu["class"] = assumed("0x030000", key);
  return gpu;
}

void assume_nouveau(Json& report, const std::string& key, const std::string& value) {
  auto v = lower(value);
  bool bound = v == "bound";
  if (!bound && !yes_no(v) && v != "loaded")
    throw InputError(fmt::format("--assume {}={}: expected loaded, bound or no", key, value));
  bool on = bound || v == "loaded" || yes_no(v).value_or(false);
  Json& kd = object_at(report, "kernel_driver");
  object_at(kd, "modules")["nouveau"] = assumed(on, key);
  if (!on) return;
  Json& modules = kd["modules"];
  if (!modules.contains("nvidia")) modules["nvidia"] = assumed(false, key);
  if (!kd.contains("version")) {
    Json f = assumed(nullptr, key);
    f["error"] = "nouveau drives the GPU (stated)";
    kd["version"] = std::move(f);
  }
  Json& pci = array_at(kd, "pci_devices");
  if (pci.empty()) pci.push_back(assumed_gpu_entry(key, 0));
  for (auto& g : pci) g["bound_driver"] = assumed("nouveau", key);
}

void assume_device_nodes(Json& report, const std::string& key, const std::string& value) {
  auto v = lower(value);
  if (v != "ok" && v != "missing" && v != "not_permitted" && v != "not-permitted" && v != "uvm_missing" &&
      v != "uvm-missing")
    throw InputError(
        fmt::format("--assume {}={}: expected ok, missing, not_permitted or uvm_missing", key, value));
  Json nodes = Json::array();
  for (const char* path : {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia0"}) {
    bool is_uvm = std::string(path).starts_with("/dev/nvidia-uvm");
    bool exists = v != "missing" && !(is_uvm && v.starts_with("uvm"));
    Json n = Json::object();
    n["path"] = path;
    n["exists"] = exists;
    n["char_device"] = exists;
    n["accessible"] = exists && !v.starts_with("not");
    n["source"] = "assume:" + key;
    nodes.push_back(std::move(n));
  }
  Json& kd = object_at(report, "kernel_driver");
  kd["device_nodes"] = std::move(nodes);
  Json& modules = object_at(kd, "modules");
  if (!modules.contains("nvidia")) modules["nvidia"] = assumed(true, key);
}

void assume_no_gpu(Json& report, const std::string& key) {
  Json& kd = object_at(report, "kernel_driver");
  kd["pci_devices"] = Json::array();
  kd["pci_devices_source"] = "assume:" + key;
}

void assume_userspace_driver(Json& report, const std::string& key, const std::string& value) {
  auto v = assumed_version(key, value);
  if (v.major() < 100)
    throw InputError(
        fmt::format("--assume {}={}: not an NVIDIA driver release (e.g. 535.154.05)", key, value));
  object_at(report, "driver_api")["library_version"] = assumed(v.text(), key);
  object_at(report, "nvml")["library_version"] = assumed(v.text(), key);
  recompute_mismatch(report);
}

// --- where libcuda is, the loader path, the toolkit -------------------------

void assume_libcuda(Json& report, const std::string& key, const std::string& value) {
  Json& api = object_at(report, "driver_api");
  Json candidates = Json::array();
  if (lower(value) == "missing" || lower(value) == "none") {
    Json f = assumed(nullptr, key);
    f["error"] = "no libcuda.so.1 on the loader's search path (stated)";
    api["picked"] = std::move(f);
  } else if (value.starts_with("unreachable:")) {
    Json c = Json::object();
    c["path"] = value.substr(12);
    c["picked_by_loader"] = false;
    candidates.push_back(std::move(c));
    Json f = assumed(nullptr, key);
    f["error"] = "not found by the loader (stated)";
    api["picked"] = std::move(f);
  } else if (value.starts_with("/")) {
    Json c = Json::object();
    c["path"] = value;
    c["picked_by_loader"] = true;
    candidates.push_back(std::move(c));
    api["picked"] = assumed(value, key);
  } else {
    throw InputError(
        fmt::format("--assume {}={}: expected a path, missing, or unreachable:PATH", key, value));
  }
  api["candidates"] = std::move(candidates);
}

void set_env(Json& report, const std::string& name, const std::string& value, const std::string& key) {
  Json& e = object_at(object_at(report, "host"), "environment");
  e[name] = assumed(value, key);
}

std::string trim_slash(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

// nvcc on PATH from another toolkit than CUDA_HOME: the conflict the probe would record.
void recompute_toolkit_conflict(Json& report) {
  const Json& home =
      report.contains("host") ? value_of(object_at(report["host"], "environment"), "CUDA_HOME") : Json();
  if (!home.is_string() || !report.contains("cuda_runtime")) return;
  const Json& nvcc = value_of(report["cuda_runtime"], "nvcc_on_path");
  if (!nvcc.is_object() || !nvcc.contains("toolkit")) return;
  auto toolkit = nvcc["toolkit"].get<std::string>();
  if (trim_slash(toolkit) == trim_slash(home.get<std::string>())) return;
  auto line = fmt::format("nvcc on PATH ({}) is from {}, not from CUDA_HOME={}", nvcc.value("path", ""),
                          toolkit, home.get<std::string>());
  Json& conflicts = array_at(report["cuda_runtime"], "conflicts");
  for (const auto& c : conflicts) {
    if (c == line) return;
  }
  conflicts.push_back(line);
}

void assume_nvcc(Json& report, const std::string& key, const std::string& value) {
  // nvcc=11.8 or nvcc=11.8@/usr/local/cuda-11.8
  auto at = value.find('@');
  auto v = assumed_version(key, value.substr(0, at));
  std::string root = at == std::string::npos ? fmt::format("/usr/local/cuda-{}.{}", v.major(), v.minor())
                                             : trim_slash(value.substr(at + 1));
  Json n = Json::object();
  n["path"] = root + "/bin/nvcc";
  n["real_path"] = root + "/bin/nvcc";
  n["version"] = assumed(v.text(), key);
  n["toolkit"] = root;
  Json& layer = object_at(report, "cuda_runtime");
  layer["nvcc_on_path"] = assumed(n, key);
  Json t = Json::object();
  t["path"] = root;
  t["real_path"] = root;
  t["version"] = assumed(v.text(), key);
  t["nvcc"] = assumed(v.text(), key);
  array_at(layer, "toolkits").push_back(std::move(t));
  recompute_toolkit_conflict(report);
}

// --- host: OS, WSL, Docker Desktop, a container without the NVIDIA runtime --

void assume_os(Json& report, const std::string& key, const std::string& value) {
  auto v = lower(value);
  std::string id, version;
  std::size_t i = 0;
  while (i < v.size() && std::isalpha(static_cast<unsigned char>(v[i]))) id += v[i++];
  while (i < v.size() && (v[i] == '-' || v[i] == ' ' || v[i] == '=')) ++i;
  version = v.substr(i);
  if (id.empty())
    throw InputError(
        fmt::format("--assume {}={}: expected an OS such as ubuntu22.04 or windows", key, value));
  if (id == "win") id = "windows";
  if (id == "mac" || id == "darwin" || id == "osx") id = "macos";
  Json& os = object_at(object_at(report, "host"), "os");
  os["id"] = assumed(id, key);
  if (!version.empty()) os["version_id"] = assumed(version, key);
  os["pretty_name"] = assumed(value, key);
}

void assume_wsl(Json& report, const std::string& key, const std::string& value) {
  auto v = lower(value);
  Json& wsl = object_at(object_at(report, "host"), "wsl");
  if (v == "1" || v == "wsl1") {
    wsl["detected"] = assumed(true, key);
    wsl["version"] = assumed(1, key);
    return;
  }
  bool on = v == "2" || v == "wsl2" || yes_no_or_throw(key, value);
  wsl["detected"] = assumed(on, key);
  if (!on) return;
  wsl["version"] = assumed(2, key);
  wsl["driver_lib_dir"] = assumed("/usr/lib/wsl/lib", key);
}

void assume_docker_desktop(Json& report, const std::string& key, const std::string& value) {
  bool on = yes_no_or_throw(key, value);
  Json& host = object_at(report, "host");
  host["docker_desktop"] = assumed(on, key);
  // Docker Desktop's GPU support runs containers in its WSL 2 VM with the Windows driver.
  if (on) assume_wsl(report, key, "2");
}

void assume_nvidia_runtime(Json& report, const std::string& key, const std::string& value) {
  bool on = yes_no_or_throw(key, value);
  Json& c = object_at(object_at(report, "host"), "container");
  if (!c.contains("kind")) c["kind"] = assumed("docker", key);
  c["nvidia_runtime"] = assumed(on, key);
  if (on) return;
  // Without the runtime no /dev/nvidia* node is passed into the container.
  Json nodes = Json::array();
  for (const char* path : {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia0"}) {
    Json n = Json::object();
    n["path"] = path;
    n["exists"] = false;
    n["char_device"] = false;
    n["accessible"] = false;
    n["source"] = "assume:" + key;
    nodes.push_back(std::move(n));
  }
  object_at(report, "kernel_driver")["device_nodes"] = std::move(nodes);
}

}  // namespace

const std::vector<std::string>& layer_assumption_keys() {
  static const std::vector<std::string> keys = {
      "torch",         "tensorflow",      "jaxlib",         "cupy-cuda12x", "onnxruntime-gpu",
      "kernel_module", "nouveau",         "device_nodes",   "gpu=none",     "userspace_driver",
      "libcuda",       "ld_library_path", "nvcc",           "cuda_home",    "os",
      "wsl",           "docker_desktop",  "nvidia_runtime", "torchvision",  "torchaudio",
      "torchcodec"};
  return keys;
}

bool apply_layer_assumption(Json& report, const std::string& key, const std::string& value,
                            const kb::KnowledgeBase& kb) {
  if (key == "kernel_module" || key == "module") {
    assume_kernel_module(report, key, value);
  } else if (key == "nouveau") {
    assume_nouveau(report, key, value);
  } else if (key == "device_nodes" || key == "dev") {
    assume_device_nodes(report, key, value);
  } else if (key == "gpu" && (lower(value) == "none" || lower(value) == "0")) {
    assume_no_gpu(report, key);
  } else if (key == "userspace_driver" || key == "libcuda_version" || key == "user_driver") {
    assume_userspace_driver(report, key, value);
  } else if (key == "libcuda") {
    assume_libcuda(report, key, value);
  } else if (key == "ld_library_path") {
    set_env(report, "LD_LIBRARY_PATH", value, key);
  } else if (key == "nvcc" || key == "toolkit") {
    assume_nvcc(report, key, value);
  } else if (key == "cuda_home" || key == "cuda_path") {
    set_env(report, key == "cuda_home" ? "CUDA_HOME" : "CUDA_PATH", value, key);
    recompute_toolkit_conflict(report);
  } else if (key == "os") {
    assume_os(report, key, value);
  } else if (key == "wsl") {
    assume_wsl(report, key, value);
  } else if (key == "docker_desktop") {
    assume_docker_desktop(report, key, value);
  } else if (key == "nvidia_runtime") {
    assume_nvidia_runtime(report, key, value);
  } else if (key == "torchvision" || key == "torchaudio" || key == "torchcodec") {
    assume_torch_companion(report, key, value);
  } else {
    return assume_framework(report, key, value, kb);
  }
  return true;
}

}  // namespace cudiag::report
