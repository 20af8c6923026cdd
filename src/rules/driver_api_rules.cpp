// Rules for the driver_api layer (libcuda): is there one on the loader's
// path, does it load, does cuInit succeed, is it the same release as the
// kernel module, and are several different ones reachable.
#include <fmt/format.h>

#include <set>

#include "rules/engine.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"

namespace cudiag::rules {
namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {.id = "driver_api.library_missing",
     .layer = "driver_api",
     .severity = "error",
     .when = "no `libcuda.so.1` anywhere",
     .covered_by = "scenario libcuda-missing",
     .message =
         "No libcuda.so.1 is on this machine: the CUDA user-space driver is not installed (or, in a container, was not mounted by the NVIDIA runtime).",
     .remediation =
         "Install the driver's CUDA library (Debian/Ubuntu: libcuda1 / libnvidia-compute-<branch>, the same release as the kernel module); in a container, start it with the NVIDIA runtime and NVIDIA_DRIVER_CAPABILITIES including compute."},
    {.id = "driver_api.not_on_loader_path",
     .layer = "driver_api",
     .severity = "error",
     .when = "libcuda exists but the loader would not find it",
     .covered_by = "scenario libcuda-not-on-loader-path",
     .message =
         "libcuda exists ({path}) but the dynamic loader would not find libcuda.so.1: it is neither in LD_LIBRARY_PATH, nor in /etc/ld.so.cache, nor in a default directory.",
     .remediation =
         "Run `sudo ldconfig` (and add {dir} to a file in /etc/ld.so.conf.d/ if it is not listed), or add it to LD_LIBRARY_PATH."},
    {.id = "driver_api.multiple_libcuda",
     .layer = "driver_api",
     .severity = "warning",
     .when = "several libcuda releases reachable",
     .covered_by = "scenario several-libcuda-releases",
     .message =
         "Several libcuda releases are reachable ({versions}); a process without RPATH loads {picked}.",
     .remediation =
         "Remove the libcuda that does not match the kernel module (leftovers of an older driver or a copied library), or keep only the intended one on LD_LIBRARY_PATH."},
    {.id = "driver_api.load_failed",
     .layer = "driver_api",
     .severity = "error",
     .when = "loading libcuda hung, crashed or failed",
     .covered_by = "test unit/rules/rule_cases_test.cpp",
     .message = "Loading libcuda ({path}) failed: {error}.",
     .remediation =
         "Reinstall the user-space driver so libcuda and its dependencies are one release; a libcuda that hangs or crashes while loading points at a broken installation or a mismatched copy."},
    {.id = "driver_api.init_failed",
     .layer = "driver_api",
     .severity = "error",
     .when = "`cuInit` failed (803/804 are left to the forward-compatibility rules) or gave no answer",
     .covered_by = "scenario cuinit-unknown-error-999",
     .message = "cuInit {outcome}.",
     .remediation = "{remedy}"},
    {.id = "driver_api.user_kernel_mismatch",
     .layer = "driver_api",
     .severity = "error",
     .when = "libcuda's release differs from the kernel module's (not for a forward-compatibility libcuda)",
     .covered_by = "scenario driver-library-version-mismatch",
     .message =
         "The user-space driver (libcuda {library}) and the loaded kernel module ({module}) are different releases: the \"driver/library version mismatch\" state, in which cuInit and NVML fail.",
     .remediation =
         "Reboot so the kernel module of the installed driver loads (usual after a driver upgrade), or install the libraries of the module's release; in a container, do not install driver libraries in the image — the NVIDIA runtime mounts the host's."},
};

constexpr const char* kDriverApiInit =
    "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__INITIALIZE.html";
constexpr const char* kLdSo = "https://man7.org/linux/man-pages/man8/ld.so.8.html";
constexpr long kCompatNotSupportedOnDevice = 804;
constexpr long kSystemDriverMismatch = 803;

void library(const Json& report, const kb::KnowledgeBase&, std::vector<Finding>& out) {
  if (!present(report, "driver_api")) return;
  const Json& candidates = fact_at(report, "driver_api.candidates");
  if (!candidates.is_array()) return;
  if (candidates.empty()) {
    auto f = finding("driver_api.library_missing");
    f.evidence.push_back(evidence_from(report, "driver_api.picked"));
    add_doc(f, kDriverApiInit, "cuInit");
    out.push_back(std::move(f));
    return;
  }
  if (!string_at(report, "driver_api.picked")) {
    std::string where = candidates[0].value("path", "");
    auto f = finding("driver_api.not_on_loader_path", {{"path", where}, {"dir", dir_of(where)}});
    f.evidence.push_back(evidence("driver_api.candidates", candidates, "search"));
    add_doc(f, kLdSo, "Search order: LD_LIBRARY_PATH, /etc/ld.so.cache, default paths");
    out.push_back(std::move(f));
  }
  std::set<std::string> versions;
  for (const auto& c : candidates) {
    if (c.contains("file_version") && c["file_version"].is_string()) {
      auto v = Version::parse(c["file_version"].get<std::string>());
      if (v && v->major() >= 100) versions.insert(v->text());
    }
  }
  if (versions.size() > 1) {
    std::string list;
    for (const auto& v : versions) list += (list.empty() ? "" : ", ") + v;
    auto picked = string_at(report, "driver_api.picked").value_or("none");
    auto f = finding("driver_api.multiple_libcuda", {{"versions", list}, {"picked", picked}});
    f.evidence.push_back(evidence("driver_api.candidates", candidates, "search"));
    f.evidence.push_back(evidence_from(report, "driver_api.picked"));
    add_doc(f, kLdSo, "Search order of a program without RPATH");
    out.push_back(std::move(f));
  }
}

void load_and_init(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  if (!string_at(report, "driver_api.picked")) return;
  auto load_error = fact_error(report, "driver_api.load");
  if (!load_error.empty()) {
    auto f = finding("driver_api.load_failed",
                     {{"path", string_at(report, "driver_api.picked").value_or("")}, {"error", load_error}});
    f.evidence.push_back(evidence_from(report, "driver_api.load"));
    out.push_back(std::move(f));
    return;
  }
  auto init = failed_call(report, "driver_api.cuInit");
  if (!init) {
    auto init_error = fact_error(report, "driver_api.cuInit");
    if (!init_error.empty()) {
      auto f = finding(
          "driver_api.init_failed",
          {{"outcome", "gave no answer: " + init_error},
           {"remedy",
            "A cuInit that hangs or crashes usually means the kernel module is wedged (check `dmesg | grep -i nvrm`; a reboot clears it) or a GPU fell off the bus (Xid 79)."}});
      f.evidence.push_back(evidence_from(report, "driver_api.cuInit"));
      add_doc(f, kDriverApiInit, "cuInit");
      out.push_back(std::move(f));
    }
    return;
  }
  // 804 exists only with forward compatibility, and 803 with a compat libcuda
  // in use is that rule's too; an 803 without one is the user-space/kernel
  // mismatch, explained here.
  bool compat = bool_at(report, "driver_api.forward_compat_package").value_or(false);
  if (init->code == kCompatNotSupportedOnDevice || (init->code == kSystemDriverMismatch && compat)) return;
  const auto* e = kb.error("driver", init->code);
  std::string remedy;
  switch (init->code) {
    case 100:
      remedy =
          "Make a GPU visible: see the kernel_driver and host layers (no GPU, module not loaded, CUDA_VISIBLE_DEVICES, container without GPU access).";
      break;
    case 999:
      remedy =
          "Check /dev/nvidia-uvm exists (`sudo modprobe nvidia-uvm`), that the driver's libraries and kernel module are one release, and `dmesg | grep -i nvrm`; after suspend/resume, reload nvidia_uvm or reboot.";
      break;
    case kSystemDriverMismatch:
      remedy =
          "libcuda and the kernel module are not one release: reboot after a driver upgrade, or reinstall the driver so its libraries and module match (see driver_api.user_kernel_mismatch when the versions are known).";
      break;
    case 35:
      remedy =
          "Install a driver that supports this libcuda's CUDA version, or remove the mismatched libcuda copy.";
      break;
    default:
      remedy = e && !e->note.empty() ? e->note : "See the error's documentation and the kernel_driver layer.";
  }
  auto f = finding(
      "driver_api.init_failed",
      {{"outcome", fmt::format("→ {}{}", init->describe(), e ? ": " + sentence_body(e->meaning) : "")},
       {"remedy", remedy}});
  f.evidence.push_back(evidence_from(report, "driver_api.cuInit"));
  if (e) add_docs(f, *e);
  add_doc(f, kDriverApiInit, "cuInit");
  out.push_back(std::move(f));
}

void user_kernel_mismatch(const Json& report, const kb::KnowledgeBase&, std::vector<Finding>& out) {
  if (!bool_at(report, "driver_api.kernel_module_mismatch").value_or(false)) return;
  if (bool_at(report, "driver_api.forward_compat_package").value_or(false))
    return;  // a compat libcuda differs on purpose
  auto kmod = string_at(report, "kernel_driver.version").value_or("?");
  auto user = string_at(report, "driver_api.library_version").value_or("?");
  auto f = finding("driver_api.user_kernel_mismatch", {{"library", user}, {"module", kmod}});
  f.evidence.push_back(evidence_from(report, "driver_api.library_version"));
  f.evidence.push_back(evidence_from(report, "kernel_driver.version"));
  add_doc(f, kDriverApiInit, "cuInit");
  out.push_back(std::move(f));
}

const RegisterRule kLibrary{{"driver_api.library", library}};
const RegisterRule kInit{{"driver_api.init", load_and_init}};
const RegisterRule kMismatch{{"driver_api.user_kernel_mismatch", user_kernel_mismatch}};

}  // namespace
}  // namespace cudiag::rules
