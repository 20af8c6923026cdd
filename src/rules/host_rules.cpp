// Rules for the host layer: what the process's environment does to CUDA
// before any driver is reached — CUDA_VISIBLE_DEVICES hiding every GPU or
// malformed, a container started without GPU access, NVIDIA_REQUIRE_*
// conditions (nvidia_require_rules.cpp), LD_PRELOAD of CUDA libraries,
// and on WSL2 a Linux driver's libcuda shadowing the Windows one.
#include <algorithm>
#include <cctype>

#include "rules/engine.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"

namespace cudiag::rules {
namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {.id = "host.cuda_visible_devices_hides_all",
     .layer = "host",
     .severity = "error",
     .when = "`CUDA_VISIBLE_DEVICES` is empty, `-1`, `NoDevFiles`, or starts with an index beyond the GPUs "
             "present",
     .covered_by = "scenario cuda-visible-devices-empty",
     .message = "CUDA_VISIBLE_DEVICES=\"{value}\" hides every GPU from CUDA, so cuInit reports no device.",
     .remediation =
         "Unset CUDA_VISIBLE_DEVICES, or set it to the indices or UUIDs of the GPUs to use (`nvidia-smi -L` lists them); schedulers (Slurm, Kubernetes) set it per job."},
    {.id = "host.cuda_visible_devices_malformed",
     .layer = "host",
     .severity = "warning",
     .when = "an entry that is not an index, `GPU-…` or `MIG-…` (CUDA ignores it and everything after it)",
     .covered_by = "scenario cuda-visible-devices-malformed",
     .message =
         "CUDA_VISIBLE_DEVICES=\"{value}\": entry \"{entry}\" is not a device index, GPU-UUID or MIG-UUID; CUDA ignores it and every entry after it.",
     .remediation =
         "Use comma-separated indices (0,1) or UUIDs from `nvidia-smi -L`, without spaces or other text."},
    {.id = "host.container_without_gpu_access",
     .layer = "host",
     .severity = "error",
     .when = "in a container with no NVIDIA runtime mounts and no `/dev/nvidia*` node",
     .covered_by = "scenario docker-container-without-gpu-access",
     .message =
         "This is a {kind} container started without GPU access: no /dev/nvidia* device nodes and no NVIDIA runtime mounts.",
     .remediation =
         "Start it with the NVIDIA Container Toolkit: `docker run --gpus all …` (or --runtime=nvidia), Podman with CDI (`--device nvidia.com/gpu=all`), a Kubernetes resource limit nvidia.com/gpu, or `apptainer --nv`; the image needs no driver of its own."},
    {.id = "host.ld_preload_cuda_library",
     .layer = "host",
     .severity = "warning",
     .when = "`LD_PRELOAD` forces a CUDA library into every process",
     .covered_by = "scenario ld-preload-libcuda",
     .message =
         "LD_PRELOAD=\"{value}\" forces a CUDA library ({library}) into every process, ahead of the one each program would load.",
     .remediation = "Remove it from LD_PRELOAD unless you are deliberately interposing (profilers, shims)."},
    {.id = "host.wsl_linux_driver_installed",
     .layer = "driver_api",
     .severity = "error",
     .when = "on WSL2 the loader picks a libcuda outside `/usr/lib/wsl/lib`",
     .covered_by = "scenario wsl2-linux-driver-installed-inside-wsl",
     .message =
         "On WSL2 the loader picks {picked} instead of the Windows driver's /usr/lib/wsl/lib/libcuda.so.1: a Linux NVIDIA driver was installed inside WSL, which cannot work there.",
     .remediation =
         "Remove the Linux driver packages inside WSL (keep only the CUDA toolkit, e.g. cuda-toolkit-12-x, never cuda-drivers), run `sudo ldconfig`, and update the driver on Windows instead."},
};

constexpr const char* kCudaEnvVars =
    "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables";
constexpr const char* kContainerToolkitEnv =
    "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html";
constexpr const char* kLdSo = "https://man7.org/linux/man-pages/man8/ld.so.8.html";
constexpr const char* kWslGuide = "https://docs.nvidia.com/cuda/wsl-user-guide/index.html";

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// CUDA accepts device indices, GPU-<uuid> and MIG-<uuid> (or prefixes of
// them); it stops at the first entry it cannot use, hiding the rest.
void cuda_visible_devices(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  auto value = env(report, "CUDA_VISIBLE_DEVICES");
  if (!value) return;
  auto entries = split_commas(*value);
  bool hides_all = value->empty() || entries.front().empty() || entries.front() == "-1" ||
                   entries.front() == "NoDevFiles" || entries.front() == "none";
  if (!hides_all && all_digits(entries.front())) {
    auto count = gpus(report, kb).size();
    if (gpu_count_known(report) && count > 0 &&
        static_cast<std::size_t>(std::stoul(entries.front().substr(0, 9))) >= count)
      hides_all = true;
  }
  if (hides_all) {
    auto f = finding("host.cuda_visible_devices_hides_all", {{"value", *value}});
    f.evidence.push_back(
        evidence("host.environment.CUDA_VISIBLE_DEVICES", *value, "env:CUDA_VISIBLE_DEVICES"));
    add_doc(f, kCudaEnvVars, "CUDA_VISIBLE_DEVICES");
    out.push_back(std::move(f));
    return;
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    bool ok = all_digits(e) || e.starts_with("GPU-") || e.starts_with("MIG-");
    if (ok) continue;
    auto f = finding("host.cuda_visible_devices_malformed", {{"value", *value}, {"entry", e}});
    f.evidence.push_back(
        evidence("host.environment.CUDA_VISIBLE_DEVICES", *value, "env:CUDA_VISIBLE_DEVICES"));
    add_doc(f, kCudaEnvVars, "CUDA_VISIBLE_DEVICES");
    out.push_back(std::move(f));
    return;
  }
}

bool any_device_node(const Json& report) {
  const Json& nodes = fact_at(report, "kernel_driver.device_nodes");
  if (!nodes.is_array()) return true;  // unknown: assume access
  for (const auto& n : nodes) {
    if (n.value("exists", false) && n.value("path", "").starts_with("/dev/nvidia")) return true;
  }
  return false;
}

void container_gpu_access(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  auto kind = container_kind(report);
  if (!kind || is_wsl(report)) return;
  if (bool_at(report, "host.container.nvidia_runtime").value_or(false) || any_device_node(report)) return;
  auto f = finding("host.container_without_gpu_access", {{"kind", *kind}});
  f.evidence.push_back(evidence_from(report, "host.container.kind"));
  f.evidence.push_back(evidence_from(report, "host.container.nvidia_runtime"));
  f.evidence.push_back(
      evidence("kernel_driver.device_nodes", fact_at(report, "kernel_driver.device_nodes"), "file:/dev"));
  add_doc(f, kContainerToolkitEnv, "GPU Enumeration");
  (void)kb;
  out.push_back(std::move(f));
}

void ld_preload(const Json& report, const kb::KnowledgeBase&, std::vector<Finding>& out) {
  auto value = env(report, "LD_PRELOAD");
  if (!value) return;
  for (const char* lib :
       {"libcuda.so", "libcudart.so", "libnvidia-ml.so", "libcudnn", "libcublas", "libnccl"}) {
    if (value->find(lib) == std::string::npos) continue;
    auto f = finding("host.ld_preload_cuda_library", {{"value", *value}, {"library", lib}});
    f.evidence.push_back(evidence("host.environment.LD_PRELOAD", *value, "env:LD_PRELOAD"));
    add_doc(f, kLdSo, "LD_PRELOAD");
    out.push_back(std::move(f));
    return;
  }
}

void wsl_libcuda(const Json& report, const kb::KnowledgeBase&, std::vector<Finding>& out) {
  if (!is_wsl(report)) return;
  auto picked = string_at(report, "driver_api.picked");
  if (!picked || picked->starts_with("/usr/lib/wsl/")) return;
  auto f = finding("host.wsl_linux_driver_installed", {{"picked", *picked}});
  f.evidence.push_back(evidence_from(report, "driver_api.picked"));
  f.evidence.push_back(evidence_from(report, "host.wsl.detected"));
  add_doc(f, kWslGuide, "Getting Started with CUDA on WSL 2");
  out.push_back(std::move(f));
}

const RegisterRule kVisible{{"host.cuda_visible_devices", cuda_visible_devices}};
const RegisterRule kContainer{{"host.container", container_gpu_access}};
const RegisterRule kPreload{{"host.ld_preload", ld_preload}};
const RegisterRule kWsl{{"host.wsl", wsl_libcuda}};

}  // namespace
}  // namespace cudiag::rules
