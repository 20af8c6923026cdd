// Rules for the kernel_driver layer: is there an NVIDIA GPU, is the NVIDIA
// kernel module loaded and bound to it, and can this user open its device
// nodes. They read only what the probe found in /proc, /sys and /dev.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "rules/engine.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"

namespace cudiag::rules {
namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {.id = "kernel_driver.no_gpu",
     .layer = "kernel_driver",
     .severity = "error",
     .when = "no NVIDIA device on the PCI bus and none answered by NVML or the driver API (not on WSL2)",
     .covered_by = "scenario debian-r535-userspace-cuda13-no-gpu",
     .message = "{situation}",
     .remediation =
         "Run on a machine with an NVIDIA GPU: attach one to this VM or pick a GPU instance type; in a container, start it with the NVIDIA runtime (docker run --gpus all, Kubernetes resource nvidia.com/gpu, apptainer --nv). `lspci -d 10de:` on the host shows whether it has one."},
    {.id = "kernel_driver.module_state_unknown",
     .layer = "kernel_driver",
     .severity = "warning",
     .when =
         R"(a GPU on the bus, `/proc/driver/nvidia/version` could not be read (Permission denied) nor `/proc/modules`: unknown, not "not loaded")",
     .covered_by = "scenario proc-unreadable-module-state-unknown",
     .message =
         "{gpu} is on the PCI bus, but whether the NVIDIA kernel module is loaded is unknown: cudiag could not read /proc/driver/nvidia/version ({error}) nor /proc/modules.",
     .remediation =
         "Run cudiag as a user who can read /proc/driver/nvidia/version and /proc/modules (hidepid or an LSM may hide them), or check with `lsmod | grep nvidia` and `cat /proc/driver/nvidia/version`."},
    {.id = "kernel_driver.module_not_loaded",
     .layer = "kernel_driver",
     .severity = "error",
     .when = "a GPU on the bus, no `/proc/driver/nvidia/version`; names the kernel the module on disk was "
             "built for when it is not the running one",
     .covered_by = "scenario gpu-present-module-not-loaded",
     .message =
         "{gpu} is on the PCI bus but the NVIDIA kernel module is not loaded (no /proc/driver/nvidia/version){why}.",
     .remediation = "{remedy}"},
    {.id = "kernel_driver.nouveau_bound",
     .layer = "kernel_driver",
     .severity = "error",
     .when = "nouveau is loaded or bound to the GPU",
     .covered_by = "scenario nouveau-bound-to-gpu",
     .message =
         "{gpu} is driven by nouveau, the open-source driver, so the NVIDIA kernel module cannot bind to it.",
     .remediation =
         "Blacklist nouveau (/etc/modprobe.d/blacklist-nouveau.conf: `blacklist nouveau` and `options nouveau modeset=0`), rebuild the initramfs (update-initramfs -u or dracut --force), reboot, then install or load the NVIDIA driver."},
    {.id = "kernel_driver.uvm_device_missing",
     .layer = "kernel_driver",
     .severity = "error",
     .when = "module loaded, `/dev/nvidia-uvm` missing",
     .covered_by = "scenario nvidia-uvm-device-missing",
     .message =
         "The NVIDIA kernel module is loaded but {nodes} {are} missing; CUDA needs /dev/nvidia-uvm for memory management, so cuInit fails (often CUDA_ERROR_UNKNOWN, 999).",
     .remediation =
         "Load the UVM module and create its node: `sudo modprobe nvidia-uvm` then `sudo nvidia-modprobe -u -c=0` (or run any CUDA program once as root); in a container, pass /dev/nvidia-uvm through (the NVIDIA runtime does)."},
    {.id = "kernel_driver.device_node_missing",
     .layer = "kernel_driver",
     .severity = "error",
     .when = "module loaded, `/dev/nvidiactl` or `/dev/nvidiaN` missing",
     .covered_by = "test unit/rules/rule_cases_test.cpp",
     .message = "The NVIDIA kernel module is loaded but {nodes} {are} missing.",
     .remediation =
         "Create the nodes with `sudo nvidia-modprobe -c=0 …` (or nvidia-smi as root); in a container, start it with the NVIDIA runtime so the nodes are passed through."},
    {.id = "kernel_driver.device_node_not_accessible",
     .layer = "kernel_driver",
     .severity = "error",
     .when = "a required node exists but this user cannot open it read-write",
     .covered_by = "scenario device-node-not-accessible",
     .message = "This user cannot open {nodes} for reading and writing, so CUDA cannot use the GPU.",
     .remediation =
         "Add the user to the group that owns the nodes (`ls -l /dev/nvidia*`, usually video or render) and log in again, or fix the udev rule / NVreg_DeviceFileMode that sets their mode."},
};

constexpr const char* kInstallGuide = "https://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html";

// The probe read /proc/driver/nvidia/version (rather than the report being
// partial): only then does its absence mean "not loaded".
bool kernel_driver_collected(const Json& report) {
  return fact_at(report, "kernel_driver.version").is_object();
}

bool module_loaded(const Json& report) {
  return version_at(report, "kernel_driver.version").has_value() ||
         bool_at(report, "kernel_driver.modules.nvidia").value_or(false);
}

bool any_gpu_answered_by_a_library(const Json& report) {
  for (const char* path : {"nvml.gpus", "driver_api.devices", "kernel_driver.gpus"}) {
    const Json& list = fact_at(report, path);
    if (list.is_array() && !list.empty()) return true;
  }
  return false;
}

bool nouveau_present(const Json& report, const std::vector<GpuView>& gpus) {
  if (bool_at(report, "kernel_driver.modules.nouveau").value_or(false)) return true;
  for (const auto& g : gpus) {
    if (g.bound_driver == "nouveau") return true;
  }
  return false;
}

// "built for 5.15.0-97-generic, running 6.5.0-21-generic" when the module
// files on disk are all for kernels other than the running one.
std::string module_for_other_kernel(const Json& report) {
  const Json& files = fact_at(report, "kernel_driver.module_files");
  auto running = string_at(report, "host.kernel_release");
  if (!files.is_array() || files.empty() || !running) return "";
  std::string other;
  for (const auto& f : files) {
    auto kernel = f.value("kernel", "");
    if (kernel == *running) return "";
    if (other.empty()) other = kernel;
  }
  return other.empty()
             ? ""
             : fmt::format("the NVIDIA module on disk is built for kernel {}, but kernel {} is running",
                           other, *running);
}

void no_gpu(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  // gpu=none states the bus's content without any module state.
  bool stated = value_at(report, "kernel_driver.pci_devices_source").is_string();
  if (is_wsl(report) || (!kernel_driver_collected(report) && !stated)) return;
  const Json& pci = fact_at(report, "kernel_driver.pci_devices");
  if (!pci.is_array() || !gpus(report, kb).empty() || any_gpu_answered_by_a_library(report)) return;
  bool loaded = module_loaded(report);
  auto f = finding(
      "kernel_driver.no_gpu",
      {{"situation",
        loaded
            ? "The NVIDIA kernel module is loaded but no NVIDIA GPU is on the PCI bus (no device of vendor 0x10de in /sys/bus/pci/devices)."
        : !kernel_driver_collected(report)
            ? "No NVIDIA GPU is on the PCI bus (as stated): CUDA has no device to use."
            : "No NVIDIA GPU is on the PCI bus (no device of vendor 0x10de in /sys/bus/pci/devices) and no NVIDIA kernel module is loaded."}});
  f.evidence.push_back(evidence("kernel_driver.pci_devices", Json(0), "file:/sys/bus/pci/devices"));
  f.evidence.push_back(evidence_from(report, "kernel_driver.version"));
  add_doc(f, kInstallGuide, "Verify You Have a CUDA-Capable GPU");
  out.push_back(std::move(f));
}

// Only a version file that does not exist says the module is not loaded;
// one that could not be read (Permission denied under hardened /proc,
// hidepid, an LSM) says nothing either way.
std::string version_unreadable_because(const Json& report) {
  const Json& f = fact_at(report, "kernel_driver.version");
  if (!f.is_object() || !f.contains("error") || !f["error"].is_string()) return "";
  const auto& why = f["error"].get_ref<const std::string&>();
  if (why == "No such file or directory" || why == "no NVRM version line") return "";
  return why;
}

void module_not_loaded(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  if (is_wsl(report) || !kernel_driver_collected(report) || module_loaded(report)) return;
  auto list = gpus(report, kb);
  if (list.empty()) return;
  std::string gpu = list.front().label;
  // /proc/modules, when it could be read, settles it.
  auto unreadable = version_unreadable_because(report);
  if (!unreadable.empty() && !bool_at(report, "kernel_driver.modules.nvidia").has_value()) {
    auto f = finding("kernel_driver.module_state_unknown", {{"gpu", gpu}, {"error", unreadable}});
    f.evidence.push_back(evidence_from(report, "kernel_driver.version"));
    f.evidence.push_back(evidence_from(report, "kernel_driver.modules.nvidia"));
    f.evidence.push_back(evidence(list.front().fact, list.front().label, list.front().source));
    add_doc(f, kInstallGuide, "Driver Installation");
    out.push_back(std::move(f));
    return;
  }
  if (nouveau_present(report, list)) {
    auto f = finding("kernel_driver.nouveau_bound", {{"gpu", gpu}});
    f.evidence.push_back(evidence_from(report, "kernel_driver.modules.nouveau"));
    f.evidence.push_back(
        evidence(list.front().fact + ".bound_driver", list.front().bound_driver, list.front().source));
    add_doc(f, kInstallGuide, "Disabling Nouveau");
    out.push_back(std::move(f));
    return;
  }
  std::string why = module_for_other_kernel(report);
  // The boot probe's Secure Boot state turns "maybe signing" into the answer, or rules it out.
  auto secure_boot = string_at(report, "boot.secure_boot");
  std::string remedy;
  if (!why.empty()) {
    remedy =
        "Rebuild the module for the running kernel (`sudo dkms autoinstall` with linux-headers-$(uname -r) installed) or boot the kernel it was built for, then `sudo modprobe nvidia`.";
  } else if (secure_boot == "enabled") {
    remedy =
        "Secure Boot is on, so the kernel loads only signed modules (`sudo modprobe nvidia` fails with \"Key was rejected by service\"): install the distribution's signed NVIDIA modules (Ubuntu: linux-modules-nvidia-<branch>-$(uname -r)), or enroll the DKMS signing key (`sudo mokutil --import /var/lib/dkms/mok.pub`, then reboot and confirm it in the MOK manager), or turn Secure Boot off in the firmware; then `sudo modprobe nvidia`.";
  } else {
    remedy = fmt::format(
        "Load it (`sudo modprobe nvidia`) and read `dmesg | grep -i nvrm` if that fails; if no driver is installed, install one (the CUDA installation guide's driver section){}.",
        secure_boot == "disabled" || secure_boot == "not_efi"
            ? ""
            : "; with Secure Boot on, the module must be signed (`mokutil --sb-state` says)");
  }
  auto f = finding("kernel_driver.module_not_loaded",
                   {{"gpu", gpu}, {"why", why.empty() ? "" : ": " + why}, {"remedy", remedy}});
  if (why.empty() && (secure_boot == "enabled" || secure_boot == "disabled" || secure_boot == "not_efi"))
    f.evidence.push_back(evidence_from(report, "boot.secure_boot"));
  f.evidence.push_back(evidence_from(report, "kernel_driver.version"));
  f.evidence.push_back(evidence_from(report, "kernel_driver.modules.nvidia"));
  f.evidence.push_back(evidence(list.front().fact, list.front().label, list.front().source));
  if (!why.empty()) f.evidence.push_back(evidence_from(report, "host.kernel_release"));
  add_doc(f, kInstallGuide, "Driver Installation");
  out.push_back(std::move(f));
}

// /dev/nvidiactl, /dev/nvidia-uvm and /dev/nvidiaN must exist and be
// readable and writable; CUDA opens all of them (UVM for every allocation).
void device_nodes(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  // Nodes seen without a module say nothing about a module --assume'd in.
  const Json& nodes = fact_at(report, "kernel_driver.device_nodes");
  // An assumed driver says nothing about this machine's nodes, unless the nodes are assumed too.
  bool nodes_assumed =
      nodes.is_array() && !nodes.empty() && nodes[0].value("source", "").starts_with("assume:");
  if (is_wsl(report) || !module_loaded(report) ||
      (is_assumed(report, "kernel_driver.version") && !nodes_assumed))
    return;
  if (!nodes.is_array()) return;
  std::vector<std::string> missing, inaccessible;
  bool has_gpu_node = false;
  for (const auto& n : nodes) {
    auto path = n.value("path", "");
    bool exists = n.value("exists", false);
    bool is_gpu_node = path.size() > 11 && path.starts_with("/dev/nvidia") &&
                       std::isdigit(static_cast<unsigned char>(path[11]));
    has_gpu_node = has_gpu_node || (is_gpu_node && exists);
    bool required = path == "/dev/nvidiactl" || path == "/dev/nvidia-uvm" || is_gpu_node;
    if (!required) continue;
    if (!exists) {
      missing.push_back(path);
    } else if (!n.value("accessible", true)) {
      inaccessible.push_back(path);
    }
  }
  if (!has_gpu_node && !gpus(report, kb).empty()) missing.push_back("/dev/nvidia0 …");
  if (!missing.empty()) {
    bool uvm = std::find(missing.begin(), missing.end(), "/dev/nvidia-uvm") != missing.end();
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    auto f = finding(uvm ? "kernel_driver.uvm_device_missing" : "kernel_driver.device_node_missing",
                     {{"nodes", list}, {"are", missing.size() == 1 ? "is" : "are"}});
    f.evidence.push_back(evidence("kernel_driver.device_nodes", nodes, "file:/dev"));
    add_doc(f, kInstallGuide, "Device Node Verification");
    out.push_back(std::move(f));
  }
  if (!inaccessible.empty()) {
    std::string list;
    for (const auto& m : inaccessible) list += (list.empty() ? "" : ", ") + m;
    auto f = finding("kernel_driver.device_node_not_accessible", {{"nodes", list}});
    f.evidence.push_back(evidence("kernel_driver.device_nodes", nodes, "file:/dev"));
    add_doc(f, kInstallGuide, "Device Node Verification");
    out.push_back(std::move(f));
  }
}

const RegisterRule kNoGpu{{"kernel_driver.no_gpu", no_gpu}};
const RegisterRule kModule{{"kernel_driver.module", module_not_loaded}};
const RegisterRule kNodes{{"kernel_driver.device_nodes", device_nodes}};

}  // namespace
}  // namespace cudiag::rules
