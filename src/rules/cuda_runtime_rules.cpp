// Rules for the cuda_runtime layer: every libcudart found against the driver
// (backward compatibility, minor-version compatibility and its limits, a
// newer major that needs a newer driver or forward compatibility) and
// against the GPUs (architectures the runtime's toolkit dropped or predates),
// plus several runtimes and toolkit conflicts.
#include <fmt/format.h>

#include "rules/engine.h"
#include "rules/ngc_support.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"
#include "rules/runtime_compat.h"

namespace cudiag::rules {
namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {.id = "cuda_runtime.needs_newer_driver",
     // The driver is what gets updated (docs/explain.md: which layer a failure belongs to), as for
     // frameworks.cuda_build_needs_newer_driver.
     .layer = "driver_api",
     .severity = "error (independent)",
     .when =
         "the runtime is newer than the driver supports and minor-version compatibility does not cover "
         "it; names the full and the MVC minimum (`kb driver-for`) and, where possible, forward "
         "compatibility; also when the runtime itself answered `cudaErrorInsufficientDriver`; not inside an NGC "
         "image on data-center GPUs whose driver is of one of the release's forward-compatibility branches",
     .covered_by = "scenario cuda102-on-r418-no-mvc-before-cuda11",
     .message = "The CUDA {version} runtime{runtime} needs {minimum}; the installed driver is {driver}.",
     .remediation = "{remedy}"},
    {.id = "cuda_runtime.minor_version_compat",
     .layer = "cuda_runtime",
     .severity = "warning",
     .when = "same major, newer minor, driver at or above the major's floor: works without PTX JIT of newer "
             "PTX and APIs needing a newer driver",
     .covered_by = "scenario cuda128-on-r560-minor-version-compat",
     .message =
         "The CUDA {version} runtime{runtime} runs on driver {driver} through minor-version compatibility, with limits: {limits}.",
     .remediation = "Ship SASS for your GPUs rather than relying on PTX JIT, or install {full_support}."},
    {.id = "cuda_runtime.gpu_dropped_by_toolkit",
     .layer = "cuda_runtime",
     .severity = "error",
     .when = "the runtime's CUDA is newer than the last toolkit that targets the GPU (sm_37 with CUDA 12, "
             "Volta with CUDA 13)",
     .covered_by = "scenario sm37-with-cuda12-runtime",
     .message =
         "{gpu} ({arch}, {sm}) cannot run CUDA {version} code: the last toolkit that targets {sm} is CUDA {last_cuda}.",
     .remediation = "Use a CUDA {last_cuda} (or older) build of the software for this GPU, or a newer GPU."},
    {.id = "cuda_runtime.gpu_newer_than_toolkit",
     .layer = "cuda_runtime",
     .severity = "warning",
     .when = "the runtime's CUDA predates the GPU's architecture: only PTX JIT can run on it",
     .covered_by = "scenario gb10-sm121-on-cuda128",
     .message =
         "CUDA {version} predates {gpu} ({arch}, {sm}; first targeted by CUDA {first_cuda}): code built with it runs on this GPU only through PTX JIT, and fails with \"no kernel image is available\" where no PTX is embedded.",
     .remediation =
         "Use a build made with CUDA {first_cuda} or later (for PyTorch, a +cu{first_major}{first_minor} or newer wheel)."},
    {.id = "cuda_runtime.multiple_versions",
     .layer = "cuda_runtime",
     .severity = "info",
     .when = "several runtime versions installed; names the loader's pick",
     .covered_by = "scenario several-cuda-runtimes-installed",
     .message =
         "Several CUDA runtime versions are installed ({versions}); a program without RPATH loads {picked}.",
     .remediation =
         "Nothing to change if each application finds its own (wheels and RPATHs do); otherwise keep one toolkit on LD_LIBRARY_PATH and in /etc/ld.so.conf.d/."},
    {.id = "cuda_runtime.toolkit_conflict",
     .layer = "cuda_runtime",
     .severity = "warning",
     .when = "nvcc on PATH from another toolkit than CUDA_HOME/CUDA_PATH, or several toolkits",
     .covered_by = "scenario nvcc-on-path-from-another-toolkit",
     .message = "{conflict}.",
     .remediation =
         "Point CUDA_HOME/CUDA_PATH and PATH at the same toolkit, so builds compile with the nvcc whose headers and libraries they link."},
    {.id = "cuda_runtime.load_failed",
     .layer = "cuda_runtime",
     .severity = "error",
     .when = "loading a libcudart hung, crashed or failed",
     .covered_by = "test unit/rules/rule_cases_test.cpp",
     .message = "Loading the CUDA runtime{runtime} failed: {error}.",
     .remediation =
         "Reinstall the toolkit or wheel that ships it; a runtime that hangs or crashes while loading points at a broken or mixed installation."},
};

constexpr const char* kLdSo = "https://man7.org/linux/man-pages/man8/ld.so.8.html";
constexpr const char* kPostInstall =
    "https://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html#post-installation-actions";

std::string runtime_label(const Json& rt) {
  auto path = rt.value("real_path", rt.value("path", ""));
  return path.empty() ? "" : " (" + path + ")";
}

bool any_datacenter_gpu_or_unknown(const std::vector<GpuView>& list) {
  if (list.empty()) return true;
  for (const auto& g : list) {
    if (g.segment.empty() || g.segment.find("datacenter") != std::string::npos) return true;
  }
  return false;
}

void against_driver(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  const Json& runtimes = fact_at(report, "cuda_runtime.runtimes");
  if (!runtimes.is_array()) return;
  auto driver = host_driver(report, kb);
  auto gpu_list = gpus(report, kb);
  // Inside an NGC image on a data-center GPU its forward-compatibility package runs CUDA up to the image's
  // on the release's older data-center branches (container.ngc_driver_too_old judges the driver there).
  const auto ngc_compat_cuda = ngc_forward_compat_cuda(report, kb);
  for (std::size_t i = 0; i < runtimes.size(); ++i) {
    const Json& rt = runtimes[i];
    std::string base = fmt::format("cuda_runtime.runtimes[{}]", i);
    auto load_error = fact_error(report, base + ".load");
    if (!load_error.empty()) {
      auto f = finding("cuda_runtime.load_failed", {{"runtime", runtime_label(rt)}, {"error", load_error}});
      f.evidence.push_back(evidence_from(report, base + ".load"));
      out.push_back(std::move(f));
      continue;
    }
    auto v = runtime_version_of(report, base);
    if (!v) continue;
    auto c = check_runtime_against_driver(kb, *v, driver, report, base);
    if (c.verdict == RuntimeVerdict::kNeedsNewerDriver && !c.observed_insufficient &&
        ngc_compat_covers(ngc_compat_cuda, *v))
      continue;
    if (c.verdict == RuntimeVerdict::kNeedsNewerDriver) {
      auto f = finding(
          "cuda_runtime.needs_newer_driver",
          {{"version", v->text()},
           {"runtime", runtime_label(rt)},
           {"minimum", describe_minimum(c)},
           {"driver", describe(driver)},
           {"remedy", remedy_for_newer_driver(c, *v, driver, any_datacenter_gpu_or_unknown(gpu_list))}});
      // A runtime needs its driver whether or not an earlier layer fails.
      f.independent = true;
      f.evidence.push_back(evidence_from(report, base + ".runtime_version"));
      add_driver_evidence(f, report, driver);
      if (c.observed_insufficient) f.evidence.push_back(evidence_from(report, base + ".cudaGetDeviceCount"));
      if (c.requirement) add_docs(f, c.requirement->sources);
      out.push_back(std::move(f));
    } else if (c.verdict == RuntimeVerdict::kMinorVersionCompat) {
      auto f = finding(
          "cuda_runtime.minor_version_compat",
          {{"version", v->text()},
           {"runtime", runtime_label(rt)},
           {"driver", describe(driver)},
           {"limits", mvc_limits_text(kb, driver)},
           {"full_support",
            c.requirement && c.requirement->full_min
                ? fmt::format("driver ≥ {} for full CUDA {} support", c.requirement->full_min->text(),
                              v->text())
                // From CUDA 13.4 no installer bundles a driver, so an unreadable Table 3 row leaves no
                // number.
                : fmt::format(
                      "a driver of the branch that reports CUDA {} for full support (its minimum is not in the knowledge base)",
                      v->text())}});
      f.evidence.push_back(evidence_from(report, base + ".runtime_version"));
      add_driver_evidence(f, report, driver);
      if (c.requirement && c.requirement->mvc) add_docs(f, *c.requirement->mvc);
      out.push_back(std::move(f));
    }
  }
}

void against_gpus(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  const Json& runtimes = fact_at(report, "cuda_runtime.runtimes");
  if (!runtimes.is_array()) return;
  auto gpu_list = gpus(report, kb);
  // Inside an NGC image on a data-center GPU its forward-compatibility package runs CUDA up to the image's
  // on the release's older data-center branches (container.ngc_driver_too_old judges the driver there).
  const auto ngc_compat_cuda = ngc_forward_compat_cuda(report, kb);
  for (std::size_t i = 0; i < runtimes.size(); ++i) {
    std::string base = fmt::format("cuda_runtime.runtimes[{}]", i);
    auto v = runtime_version_of(report, base);
    if (!v) continue;
    Version minor = Version::from_cuda_int(v->to_cuda_int());
    for (const auto& g : gpu_list) {
      if (!g.arch) continue;
      const auto& a = *g.arch;
      if (a.last_cuda && minor > *a.last_cuda) {
        auto f = finding("cuda_runtime.gpu_dropped_by_toolkit", {{"gpu", g.label},
                                                                 {"arch", a.name},
                                                                 {"sm", a.sm},
                                                                 {"version", v->text()},
                                                                 {"last_cuda", a.last_cuda->text()}});
        f.evidence.push_back(evidence_from(report, base + ".runtime_version"));
        f.evidence.push_back(evidence(g.fact, g.label, g.source));
        add_docs(f, a);
        out.push_back(std::move(f));
        continue;
      }
      auto first = a.first_cuda ? a.first_cuda : a.first_cuda_at_most;
      if (first && minor < *first) {
        auto f = finding("cuda_runtime.gpu_newer_than_toolkit", {{"version", v->text()},
                                                                 {"gpu", g.label},
                                                                 {"arch", a.name},
                                                                 {"sm", a.sm},
                                                                 {"first_cuda", first->text()},
                                                                 {"first_major", first->major()},
                                                                 {"first_minor", first->minor()}});
        f.evidence.push_back(evidence_from(report, base + ".runtime_version"));
        f.evidence.push_back(evidence(g.fact, g.label, g.source));
        add_docs(f, a);
        out.push_back(std::move(f));
      }
    }
  }
}

void several_and_conflicts(const Json& report, const kb::KnowledgeBase&, std::vector<Finding>& out) {
  const Json& distinct = fact_at(report, "cuda_runtime.distinct_versions");
  if (distinct.is_array() && distinct.size() > 1) {
    std::string list, picked;
    for (const auto& d : distinct) list += (list.empty() ? "" : ", ") + d.get<std::string>();
    for (const auto& rt : fact_at(report, "cuda_runtime.runtimes")) {
      if (rt.value("picked_by_loader", false))
        picked += (picked.empty() ? "" : ", ") + rt.value("real_path", rt.value("path", ""));
    }
    auto f = finding("cuda_runtime.multiple_versions",
                     {{"versions", list}, {"picked", picked.empty() ? "none of them by default" : picked}});
    f.evidence.push_back(evidence("cuda_runtime.distinct_versions", distinct, "search"));
    add_doc(f, kLdSo, "Search order of a program without RPATH");
    out.push_back(std::move(f));
  }
  const Json& conflicts = fact_at(report, "cuda_runtime.conflicts");
  if (conflicts.is_array()) {
    for (const auto& c : conflicts) {
      if (!c.is_string()) continue;
      auto f = finding("cuda_runtime.toolkit_conflict", {{"conflict", c.get<std::string>()}});
      f.evidence.push_back(evidence("cuda_runtime.conflicts", conflicts, "search"));
      f.evidence.push_back(evidence_from(report, "cuda_runtime.nvcc_on_path"));
      add_doc(f, kPostInstall, "Environment Setup (PATH and LD_LIBRARY_PATH of one toolkit)");
      out.push_back(std::move(f));
    }
  }
}

const RegisterRule kDriver{{"cuda_runtime.driver", against_driver}};
const RegisterRule kGpus{{"cuda_runtime.gpus", against_gpus}};
const RegisterRule kSeveral{{"cuda_runtime.several", several_and_conflicts}};

}  // namespace
}  // namespace cudiag::rules
