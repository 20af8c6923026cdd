#include "report/assume.h"

#include <fmt/format.h>
#include <strings.h>

#include <algorithm>

#include "core/errors.h"
#include "core/version.h"
#include "kb/ngc_containers.h"
#include "machine/environment.h"
#include "probes/library_catalog.h"
#include "report/assume_layers.h"
#include "report/assumed_fact.h"

namespace cudiag::report {

namespace {

using assume_support::array_at;
using assume_support::assumed;
using assume_support::assumed_version;
using assume_support::object_at;

void assume_driver(Json& report, const std::string& value, const kb::KnowledgeBase& kb) {
  auto v = assumed_version("driver", value);
  if (v.major() < 100)
    throw InputError(
        fmt::format("--assume driver={}: not an NVIDIA driver release (e.g. 535.104.05)", value));
  Json& kd = object_at(report, "kernel_driver");
  kd["version"] = assumed(v.text(), "driver");
  object_at(kd, "modules")["nvidia"] = assumed(true, "driver");
  // The libraries' answers, where the report has them, become the assumed
  // driver's; without them the rules take the CUDA version from the branch.
  auto cuda = kb.cuda_for_driver(v);
  for (const char* layer : {"driver_api", "nvml"}) {
    if (!report.contains(layer) || !report[layer].is_object()) continue;
    Json& l = report[layer];
    l[layer == std::string("nvml") ? "driver_version" : "library_version"] = assumed(v.text(), "driver");
    if (cuda) l["cuda_driver_version"] = assumed(cuda->text(), "driver");
    l.erase("kernel_module_mismatch");
  }
}

// A forward-compatibility libcuda of this release on the loader path.
void assume_compat(Json& report, const std::string& value, const kb::KnowledgeBase& kb) {
  auto v = assumed_version("compat", value);
  Json& api = object_at(report, "driver_api");
  api["forward_compat_package"] = assumed(true, "compat");
  api["library_version"] = assumed(v.text(), "compat");
  api["picked"] = assumed("/usr/local/cuda/compat/libcuda.so." + v.text(), "compat");
  const auto* release = kb.forward_compat().release_for(v);
  auto cuda = release ? std::optional<Version>(release->cuda) : kb.cuda_for_driver(v);
  if (cuda) api["cuda_driver_version"] = assumed(cuda->text(), "compat");
}

void assume_gpu(Json& report, const std::string& value, const kb::KnowledgeBase& kb) {
  Json gpu = Json::object();
  Json& pci = array_at(object_at(report, "kernel_driver"), "pci_devices");
  gpu["bus_id"] = assumed(fmt::format("assume:{}", pci.size()), "gpu");
  gpu["kind"] = "gpu";
  if (auto match = kb.arch_match(value)) {
    gpu["compute_capability"] = assumed(match->arch->cc.text(), "gpu");
  } else {
    auto products = kb.gpus_matching(value);
    if (products.empty()) {
      // A GeForce model the product list lacks: its series' architecture.
      if (const auto* series = kb.arch_for_geforce_series(value)) {
        gpu["name"] = assumed(value, "gpu");
        gpu["compute_capability"] = assumed(series->cc.text(), "gpu");
        pci.push_back(std::move(gpu));
        return;
      }
      throw InputError(fmt::format(
          "--assume gpu={}: no such GPU or architecture in the knowledge base (try `cudiag kb gpu`)", value));
    }
    // Ambiguous when the closest candidates disagree on the architecture.
    for (const auto* p : products) {
      if (p->cc == products.front()->cc) continue;
      std::string names;
      for (const auto* q : products)
        names += (names.empty() ? "" : "; ") + q->name + " (cc " + q->cc.text() + ")";
      throw InputError(fmt::format("--assume gpu={}: ambiguous, name one of: {}", value, names));
    }
    gpu["name"] = assumed(products.front()->name, "gpu");
    gpu["device_id"] = assumed(fmt::format("0x{:04x}", products.front()->pci_id), "gpu");
    gpu["compute_capability"] = assumed(products.front()->cc.text(), "gpu");
  }
  pci.push_back(std::move(gpu));
}

void assume_runtime(Json& report, const std::string& value) {
  auto v = assumed_version("cuda_runtime", value);
  Json rt = Json::object();
  rt["path"] = fmt::format("assume:libcudart.so.{}", v.major());
  rt["runtime_version"] = assumed(fmt::format("{}.{}", v.major(), v.minor()), "cuda_runtime");
  Json& layer = object_at(report, "cuda_runtime");
  array_at(layer, "runtimes").push_back(std::move(rt));
}

void assume_library(Json& report, const model::LibraryKind& kind, const std::string& value) {
  auto v = assumed_version(kind.key, value);
  Json inst = Json::object();
  inst["path"] = fmt::format("assume:{}.{}", kind.file_prefix, v.major());
  inst["version"] = assumed(v.text(), kind.key);
  Json& lib = object_at(object_at(report, "libraries"), kind.key);
  lib["name"] = kind.display;
  array_at(lib, "instances").push_back(std::move(inst));
  Json& distinct = array_at(lib, "distinct_versions");
  bool seen = false;
  for (const auto& d : distinct) seen = seen || d == Json(v.text());
  if (!seen) distinct.push_back(v.text());
  const bool several = distinct.size() > 1;  // before adding a key to lib moves `distinct`
  lib["multiple_versions"] = several;
}

void assume_container(Json& report, const std::string& value) {
  static const char* kinds[] = {"docker", "podman", "kubernetes", "apptainer", "singularity", "lxc"};
  if (std::none_of(std::begin(kinds), std::end(kinds), [&](const char* k) { return value == k; }))
    throw InputError(fmt::format(
        "--assume container={}: expected docker, podman, kubernetes, apptainer, singularity or lxc", value));
  Json& c = object_at(object_at(report, "host"), "container");
  c["kind"] = assumed(value, "container");
  // nvidia_runtime=no (assume_layers.cpp) stated before or after wins over the default.
  if (!c.contains("nvidia_runtime") || !c["nvidia_runtime"].is_object() ||
      !c["nvidia_runtime"].value("source", "").starts_with("assume:nvidia_runtime"))
    c["nvidia_runtime"] = assumed(true, "container");
}

// An NGC framework container release (nvcr.io/nvidia/pytorch:21.10-py3 is 21.10): the CUDA it is
// based on, and the release itself for the rule on the host driver it needs.
void assume_ngc(Json& report, const std::string& value, const kb::KnowledgeBase& kb) {
  auto release = kb::ngc_release(kb, value);
  if (!release) {
    auto all = kb::ngc_releases(kb);
    throw InputError(fmt::format(
        "--assume ngc={}: not an NGC container release the knowledge base has (YY.MM, {} to {}; months "
        "missing from data/kb/ngc_containers.json are unknown)",
        value, all.empty() ? "none" : all.front().release, all.empty() ? "none" : all.back().release));
  }
  assume_runtime(report, release->cuda.text());
  Json& c = object_at(object_at(report, "host"), "container");
  if (!c.contains("kind")) assume_container(report, "docker");
  c["ngc_release"] = assumed(release->release, "ngc");
}

void assume_env(Json& report, const std::string& name, const std::string& value) {
  if (!is_allowlisted_variable(name))
    throw InputError(
        fmt::format("--assume env.{}: not a variable cudiag reads (see the environment allowlist)", name));
  Json& e = object_at(object_at(report, "host"), "environment");
  Json f = Json::object();
  f["value"] = value;
  f["source"] = "assume:env." + name;
  e[name] = std::move(f);
}

// Issue #13: what the NVIDIA container runtime reads that no probe may see
// from inside a container: the GPUs' NVML brand, the host toolkit's version
// and its runtime mode (host config.toml).
bool assume_container_runtime(Json& report, const std::string& key, const std::string& value) {
  if (key == "gpu_brand") {
    static const char* brands[] = {"Tesla", "Quadro", "NVS", "GRID", "GeForce", "TITAN", "Unknown"};
    auto it = std::find_if(std::begin(brands), std::end(brands),
                           [&](const char* b) { return strcasecmp(b, value.c_str()) == 0; });
    if (it == std::end(brands))
      throw InputError(fmt::format(
          "--assume gpu_brand={}: expected Tesla, Quadro, NVS, GRID, GeForce, TITAN or Unknown (the brands "
          "libnvidia-container reads from NVML)",
          value));
    object_at(report, "host")["gpu_brand"] = assumed(*it, key);
    return true;
  }
  if (key == "container_toolkit") {
    auto v = assumed_version(key, value);
    object_at(object_at(report, "host"), "nvidia_container_toolkit")["version"] = assumed(v.text(), key);
    return true;
  }
  if (key == "container_runtime_mode") {
    static const char* modes[] = {"auto", "legacy", "cdi", "jit-cdi", "csv"};
    if (std::none_of(std::begin(modes), std::end(modes), [&](const char* m) { return value == m; }))
      throw InputError(fmt::format(
          "--assume container_runtime_mode={}: expected auto, legacy, cdi, jit-cdi or csv", value));
    object_at(object_at(report, "host"), "nvidia_container_toolkit")["mode"] = assumed(value, key);
    return true;
  }
  return false;
}

}  // namespace

const std::vector<std::string>& assumption_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k = {
        "driver",   "compat",    "gpu",       "cuda_runtime",      "container",
        "env.NAME", "<library>", "gpu_brand", "container_toolkit", "container_runtime_mode",
        "ngc"};
    for (const auto& l : layer_assumption_keys()) k.push_back(l);
    return k;
  }();
  return keys;
}

void apply_assumptions(Json& report, const std::vector<std::string>& assumptions,
                       const kb::KnowledgeBase& kb) {
  if (assumptions.empty()) return;
  // Collected apart and stored last: ordered_json keeps members in a vector,
  // so a reference into the report dies when an assumption adds a layer.
  Json record = report.contains("assumptions") && report["assumptions"].is_array() ? report["assumptions"]
                                                                                   : Json::array();
  for (const auto& a : assumptions) {
    auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(fmt::format(
          "--assume {}: expected KEY=VALUE (keys: driver, compat, gpu, cuda_runtime, container, env.NAME, "
          "or a library such as cudnn)",
          a));
    std::string key = a.substr(0, eq);
    std::string value = a.substr(eq + 1);
    if (apply_layer_assumption(report, key, value, kb)) {
      // every layer's state: frameworks, kernel module, device nodes, toolkit, OS, WSL, container
    } else if (key == "driver") {
      assume_driver(report, value, kb);
    } else if (key == "compat") {
      assume_compat(report, value, kb);
    } else if (key == "gpu") {
      assume_gpu(report, value, kb);
    } else if (key == "cuda_runtime" || key == "cuda" || key == "runtime") {
      assume_runtime(report, value);
    } else if (key == "container") {
      assume_container(report, value);
    } else if (key == "ngc") {
      assume_ngc(report, value, kb);
    } else if (assume_container_runtime(report, key, value)) {
    } else if (key.starts_with("env.")) {
      assume_env(report, key.substr(4), value);
    } else if (const auto* kind = model::find_library_kind(key)) {
      assume_library(report, *kind, value);
    } else {
      throw InputError(fmt::format(
          "--assume {}: unknown key '{}' (keys: driver, compat, gpu, cuda_runtime, container, env.NAME, "
          "a library such as cudnn, nccl, cublas, or one of torch, tensorflow, jaxlib, cupy-cuda12x, "
          "onnxruntime-gpu, kernel_module, nouveau, device_nodes, userspace_driver, libcuda, "
          "ld_library_path, "
          "nvcc, cuda_home, os, wsl, docker_desktop, nvidia_runtime, gpu_brand, container_toolkit, "
          "container_runtime_mode, ngc; see docs/assume.md)",
          a, key));
    }
    record.push_back(a);
  }
  report["assumptions"] = std::move(record);
}

}  // namespace cudiag::report
