// Rules for the `frameworks` layer: what each Python framework was built for
// (its CUDA, its GPU architectures, the cuDNN/NCCL/cuBLAS it pins) against
// the driver, the GPUs and the libraries the loader would actually give it.
// Facts come from the report (probes/frameworks/frameworks_probe.cpp); framework
// release matrices from the knowledge base table framework_matrix.

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/pep440.h"
#include "inspect/arch_compat.h"
#include "inspect/verdict.h"
#include "kb/framework_matrix.h"
#include "kb/knowledge_base.h"
#include "rules/arch_targets.h"
#include "rules/engine.h"
#include "rules/framework_support.h"
#include "rules/ngc_support.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"
#include "rules/torch_variants.h"

namespace cudiag::rules {

namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {.id = "frameworks.cpu_only_build_with_gpu",
     .layer = "frameworks",
     .severity = "warning",
     .when = "A framework is a CPU-only build (torch/version.py `cuda = None` and `hip = None`, TensorFlow "
             "`is_cuda_build: False`, `onnxruntime` without its CUDA provider, jaxlib without a jax-cuda "
             "plugin) while the machine has an NVIDIA GPU.",
     .covered_by = "test unit/frameworks/frameworks_machine_test.cpp",
     .message =
         "{framework} is a CPU-only build, but this machine has {gpu}: it will run everything on the CPU",
     .remediation = "{remedy}"},
    {.id = "frameworks.rocm_build",
     .layer = "frameworks",
     .severity = "error / warning",
     .when =
         "A framework built for AMD GPUs (torch/version.py `hip` set, a +rocmX.Y wheel): an error with an "
         "NVIDIA GPU known, else a warning (an error when a pasted message shows CUDA unusable).",
     .covered_by = "test unit/explain/machine_fix_test.cpp",
     .message = "{framework} is a ROCm build (HIP {hip}) for AMD GPUs: it cannot use NVIDIA GPUs or CUDA",
     .remediation =
         "Install the CUDA build instead: pip uninstall -y torch torchvision torchaudio && pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu126 (a launcher that picked ROCm for a machine with an AMD integrated GPU: set its TORCH_COMMAND or index to the CUDA one)"},
    {.id = "frameworks.onnxruntime_cpu_and_gpu_installed",
     .layer = "frameworks",
     .severity = "warning",
     .when =
         "Both onnxruntime and onnxruntime-gpu are installed in one environment (their dist-info, or both "
         "stated); an error when a pasted message shows the CUDA provider missing.",
     .covered_by = "test unit/frameworks/frameworks_machine_test.cpp",
     .message =
         "{framework}: both onnxruntime and onnxruntime-gpu are installed; they install the same onnxruntime module, so the one installed last wins and the CUDA execution provider may be missing",
     .remediation =
         "pip uninstall -y onnxruntime onnxruntime-gpu && pip install onnxruntime-gpu (it includes the CPU execution provider)"},
    {.id = "frameworks.cuda_build_needs_newer_driver",
     // The driver is what gets updated (docs/explain.md: which layer a failure belongs to).
     .layer = "driver_api",
     .severity = "error / warning",
     .when = "The CUDA a framework is built for (torch `cuda`, build_info `cuda_version`, CuPy/ONNX "
             "Runtime/JAX plugin major) is newer than the driver's CUDA. Another major: error "
             "(cudaErrorInsufficientDriver). Same major, newer minor: warning, it runs through minor-version "
             "compatibility with its limits (no JIT of newer PTX); error when the driver is below the "
             "major's MVC floor. JAX also: the driver is below the plugin's documented minimum (525 for CUDA "
             "12, 580 for CUDA 13).",
     .covered_by = "test unit/frameworks/frameworks_machine_test.cpp",
     .message = "{problem}",
     .remediation = "{remedy}"},
    {.id = "frameworks.ptx_jit_needed",
     .layer = "binaries",
     .severity = "warning",
     .when = "The build has no SASS for the GPU and the driver JIT-compiles its PTX at first use (minutes; "
             "cached in ~/.nv/ComputeCache). Architectures from libtorch_cuda.so's fatbin headers or "
             "TensorFlow's `cuda_compute_capabilities`.",
     .covered_by = "test unit/frameworks/frameworks_machine_test.cpp",
     .message =
         "{framework} has no SASS for {gpu} (sm_{cc_major}{cc_minor}); the driver JIT-compiles {image} at first use: the first CUDA call takes minutes and the result is cached in ~/.nv/ComputeCache (CUDA_CACHE_MAXSIZE)",
     .remediation =
         "Install a build whose architecture list includes this GPU (a newer CUDA variant of the framework), or raise CUDA_CACHE_MAXSIZE so the JIT result is kept"},
    {.id = "frameworks.no_kernel_for_gpu",
     .layer = "binaries",
     .severity = "error",
     .when =
         R"(Neither SASS that runs on the GPU nor PTX the driver can JIT (PTX ISA newer than the driver's), or, with no architecture list known, a build CUDA older than every architecture the GPU runs (CUDA 10.x on Ampere): "no kernel image is available for execution on the device".)",
     .covered_by = "test unit/frameworks/frameworks_machine_test.cpp",
     .message =
         "{framework} cannot run kernels on {gpu}: {reason}; CUDA calls fail with 'no kernel image is available for execution on the device'",
     .remediation = "Install a build that includes this architecture: {install}"},
    {.id = "frameworks.gpu_older_than_build",
     .layer = "binaries",
     .severity = "error",
     .when = "The GPU's compute capability is below every architecture the build carries, or below the "
             "knowledge base's floor (JAX CUDA 12: 5.2, CUDA 13 builds: 7.5).",
     .covered_by = "test unit/frameworks/frameworks_machine_test.cpp",
     .message = "{problem}",
     .remediation = "{remedy}"},
    {.id = "frameworks.library_not_found",
     .layer = "frameworks",
     .severity = "error / warning",
     .when = "A CUDA library the framework needs (DT_NEEDED: error; dlopen, as TensorFlow does: warning, it "
             "falls back to the CPU) is found nowhere the loader searches.",
     .covered_by = "test unit/frameworks/frameworks_machine_test.cpp",
     .message = "{problem}",
     .remediation = "{remedy}"},
    {.id = "frameworks.library_version_mismatch",
     .layer = "frameworks",
     .severity = "error / warning",
     .when = "The copy the loader would pick does not satisfy the framework's own Requires-Dist pin (e.g. "
             "`nvidia-nccl-cu12==2.20.5` vs a system 2.18.3): error when the major differs; or is an older "
             "cuDNN minor than the build recorded (TensorFlow `cudnn_version`).",
     .covered_by = "test unit/frameworks/frameworks_machine_test.cpp",
     .message = "{problem}",
     .remediation = "{remedy}"},
    {.id = "frameworks.library_shadowed",
     .layer = "frameworks",
     .severity = "error / warning",
     .when = "The loader would pick a copy from outside the environment (LD_LIBRARY_PATH before a RUNPATH, "
             "ld.so.cache) although the environment has the nvidia-* wheel for it. Error when that copy is "
             "older than the wheel's (the classic `undefined symbol: __nvJitLinkAddData_12_x` from an old "
             "toolkit's nvJitLink on LD_LIBRARY_PATH).",
     .covered_by = "test unit/frameworks/frameworks_machine_test.cpp",
     .message =
         "{framework} would load {soname} {version} from {path} ({via}), not the {wheel} {wheel_version} wheel installed beside it{older}",
     .remediation = "{remedy}"},
    {.id = "frameworks.mixed_cuda_majors",
     .layer = "frameworks",
     .severity = "warning",
     .when = "Two frameworks in one environment are built for different CUDA majors (torch cu12 beside "
             "jax-cuda13-plugin).",
     .covered_by = "test unit/frameworks/frameworks_machine_test.cpp",
     .message =
         "Frameworks in {prefix} need different CUDA majors: {frameworks}; importing both in one process loads two CUDA runtimes and whichever loads first wins for shared libraries such as cuDNN and NCCL",
     .remediation =
         "Install builds for one CUDA major in this environment, or keep the frameworks in separate environments"},
    {.id = "frameworks.mixed_cuda_wheels",
     .layer = "frameworks",
     .severity = "warning",
     .when = "One environment holds nvidia-* wheels of more than one CUDA major (nvidia-cuda-runtime-cu12 "
             "beside the unsuffixed CUDA 13 nvidia-cuda-runtime).",
     .covered_by = "test unit/render/frameworks_summary_test.cpp",
     .message = "{prefix} holds nvidia-* wheels for more than one CUDA major ({wheels})",
     .remediation = "Uninstall the wheels of the CUDA major no framework in this environment is built for"},
};

// ---------------------------------------------------------------------------

void cpu_only_build(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  auto gs = gpus(report, kb);
  if (gs.empty()) return;
  for (const auto& r : frameworks_in(report)) {
    if (fw_value(report, r, "build.cpu_only") != true) continue;
    std::string name = r.fw->value("name", "");
    std::string remedy;
    auto release = name == "torch" ? Version::parse(version_text(*r.fw)) : std::nullopt;
    auto same_release = release ? torch_cuda_wheel(kb, *release, host_driver(report, kb).cuda) : std::nullopt;
    if (same_release)
      remedy = "Install a CUDA build: " + *same_release;
    else if (name == "torch")
      remedy =
          "Install a CUDA build of PyTorch for a CUDA version the driver supports, e.g. pip install torch --index-url https://download.pytorch.org/whl/cu126 (Linux wheels on PyPI are CUDA builds; +cpu and distribution packages are not)";
    else if (name == "tensorflow")
      remedy = "pip install 'tensorflow[and-cuda]' (Linux) instead of tensorflow-cpu or a CPU-only build";
    else if (name == "onnxruntime")
      remedy =
          "pip uninstall onnxruntime && pip install onnxruntime-gpu (the two packages conflict when both are installed)";
    else if (name == "jax")
      remedy = kJaxCudaInstall;
    else
      remedy = "Install the framework's CUDA build";
    auto f = finding("frameworks.cpu_only_build_with_gpu",
                     {{"framework", label(r)}, {"gpu", gs.front().label}, {"remedy", remedy}});
    f.evidence.push_back(evidence_from(report, r.path + ".build.cpu_only"));
    if (present(report, r.path + ".build.cuda"))
      f.evidence.push_back(evidence_from(report, r.path + ".build.cuda"));
    f.evidence.push_back(evidence(gs.front().fact, gs.front().label, gs.front().source));
    f.docs.push_back(
        {"https://pytorch.org/get-started/locally/", "Start Locally: choose the CUDA compute platform"});
    out.push_back(std::move(f));
  }
}

void rocm_build(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  bool nvidia = !gpus(report, kb).empty();
  for (const auto& r : frameworks_in(report)) {
    const Json& hip = fw_value(report, r, "build.hip");
    if (!hip.is_string() || hip.get<std::string>().empty()) continue;
    auto f = finding("frameworks.rocm_build", nvidia ? Severity::kError : Severity::kWarning,
                     {{"framework", label(r)}, {"hip", hip.get<std::string>()}});
    f.evidence.push_back(evidence_from(report, r.path + ".build.hip"));
    f.docs.push_back(
        {"https://pytorch.org/get-started/locally/", "Start Locally: choose the CUDA compute platform"});
    out.push_back(std::move(f));
  }
}

void onnxruntime_both_packages(const Json& report, std::vector<Finding>& out) {
  for (const auto& r : frameworks_in(report)) {
    if (!present(report, r.path + ".conflicting_packages")) continue;
    auto f = finding("frameworks.onnxruntime_cpu_and_gpu_installed", {{"framework", label(r)}});
    f.evidence.push_back(evidence_from(report, r.path + ".conflicting_packages"));
    f.docs.push_back({"https://onnxruntime.ai/docs/install/", "Install ONNX Runtime: onnxruntime-gpu"});
    out.push_back(std::move(f));
  }
}

void cuda_build_vs_driver(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  auto d = host_driver(report, kb);
  if (!d.cuda) return;
  // Inside an NGC image on data-center GPUs, its forward-compatibility package runs builds for CUDA up to
  // the image's on the release's older data-center branches (container.ngc_driver_too_old judges there).
  const auto ngc_compat_cuda = ngc_forward_compat_cuda(report, kb);
  for (const auto& r : frameworks_in(report)) {
    auto b = build_cuda(report, r);
    if (!b.major) continue;
    if (ngc_compat_covers(ngc_compat_cuda, b.version ? *b.version : Version::from_cuda_int(*b.major * 1000)))
      continue;
    std::string name = r.fw->value("name", "");
    std::string built = b.version ? b.version->text() : fmt::format("{}.x", *b.major);
    Severity severity = Severity::kError;
    std::string problem, remedy;
    const kb::MinorVersionCompat* mvc = nullptr;
    if (*b.major > d.cuda->major()) {
      problem = fmt::format(
          "{} is built for CUDA {}, but the driver {} supports CUDA {} at most: CUDA calls fail with cudaErrorInsufficientDriver (35)",
          label(r), built, describe(d), d.cuda->text());
      auto branch =
          first_branch_for_cuda(kb, b.version ? *b.version : Version::from_cuda_int(*b.major * 1000));
      remedy = branch ? fmt::format("Install driver branch R{} or newer, or a build of {} for CUDA {}.x",
                                    *branch, name, d.cuda->major())
                      : fmt::format("Install a newer driver, or a build of {} for CUDA {}.x", name,
                                    d.cuda->major());
    } else if (b.version && *b.version > *d.cuda) {
      // Same major: minor-version compatibility runs it when the driver is at
      // least the major's MVC floor, with the limits MVC has.
      mvc = kb.mvc_for_major(b.version->major());
      auto floor = mvc ? mvc->min_for("linux", *b.version) : std::nullopt;
      if (!mvc) {
        // Minor-version compatibility starts with CUDA 11: before it a runtime needs its own release's
        // driver.
        problem = fmt::format(
            "{} is built for CUDA {}, but the driver {} supports CUDA {} at most, and CUDA {}.x has no "
            "minor-version compatibility: CUDA calls fail with cudaErrorInsufficientDriver (35)",
            label(r), built, describe(d), d.cuda->text(), b.version->major());
      } else if (floor && d.version && *d.version < *floor) {
        problem = fmt::format(
            "{} is built for CUDA {}; the driver {} is below CUDA {}.x's minor-version-compatibility floor {}",
            label(r), built, describe(d), b.version->major(), floor->text());
      } else {
        severity = Severity::kWarning;
        problem = fmt::format(
            "{} is built for CUDA {}, newer than the driver's CUDA {}: it runs through minor-version compatibility, where PTX compiled by the newer toolkit cannot be JIT-compiled (CUDA_ERROR_UNSUPPORTED_PTX_VERSION) and APIs added after CUDA {} fail",
            label(r), built, d.cuda->text(), d.cuda->text());
      }
      auto branch = first_branch_for_cuda(kb, *b.version);
      auto needed = kb.driver_for_cuda(*b.version);
      remedy = needed && needed->full_min
                   ? fmt::format("Install driver {} or newer (CUDA {}), or a {} build for CUDA {} or older",
                                 needed->full_min->text(), built, name, d.cuda->text())
               : branch
                   ? fmt::format(
                         "Install driver branch R{} or newer (CUDA {}), or a {} build for CUDA {} or older",
                         *branch, built, name, d.cuda->text())
                   : fmt::format("Install a newer driver, or a {} build for CUDA {} or older", name,
                                 d.cuda->text());
    } else {
      continue;
    }
    auto f = finding("frameworks.cuda_build_needs_newer_driver", severity,
                     {{"problem", problem}, {"remedy", remedy}});
    f.independent = true;
    f.evidence.push_back(evidence_from(report, b.fact));
    add_driver_evidence(f, report, d);
    if (mvc) add_docs(f, *mvc);
    if (auto req = kb.driver_for_cuda(b.version ? *b.version : Version::from_cuda_int(*b.major * 1000)))
      add_docs(f, req->sources);
    out.push_back(std::move(f));
  }
  // JAX documents its own driver floors (525 for CUDA 12 plugins, 580 for 13).
  if (!d.version) return;
  for (const auto& r : frameworks_in(report)) {
    if (r.fw->value("name", "") != "jax") continue;
    auto b = build_cuda(report, r);
    // A plugin for a newer CUDA major than the driver's is reported above already.
    if (!b.major || *b.major > d.cuda->major()) continue;
    const Json* row = kb::framework_matrix_row(kb, "jax", "", b.major);
    if (!row || !row->contains("min_driver")) continue;
    auto min = Version::parse((*row)["min_driver"].get<std::string>());
    if (!min || *d.version >= *min) continue;
    auto f = finding(
        "frameworks.cuda_build_needs_newer_driver", Severity::kError,
        {{"problem", fmt::format("{} uses CUDA {} plugins, which need driver {} or newer; this driver is {}",
                                 label(r), *b.major, min->text(), describe(d))},
         {"remedy", fmt::format("Install driver {} or newer, or jax[cuda12] on an older driver (>= 525)",
                                min->text())}});
    f.independent = true;
    f.evidence.push_back(evidence_from(report, b.fact));
    f.evidence.push_back(
        evidence("kb:framework_matrix.jax.min_driver", min->text(), "knowledge base framework_matrix"));
    add_driver_evidence(f, report, d);
    f.docs = kb_docs(kb, *row);
    out.push_back(std::move(f));
  }
}

// The SASS and PTX a framework carries, from its binaries' fatbins (torch) or
// its build record (TensorFlow's cuda_compute_capabilities).
struct Targets {
  std::vector<inspect::FatbinEntry> entries;
  std::string fact;
  std::string what;  // "libtorch_cuda.so", "build_info.py"
  std::string listing;
};

std::optional<Targets> targets_of(const Json& report, const FwRef& r) {
  Targets t;
  const Json& bins = r.fw->contains("binaries") ? (*r.fw)["binaries"] : Json();
  for (std::size_t i = 0; bins.is_array() && i < bins.size(); ++i) {
    if (!bins[i].contains("architectures")) continue;
    append_arch_entries(bins[i]["architectures"], t.entries, t.listing);
    if (t.entries.empty()) continue;
    t.fact = fmt::format("{}.binaries[{}].architectures", r.path, i);
    t.what = bins[i].value("path", "");
    return t;
  }
  const Json& caps = fw_value(report, r, "build.cuda_compute_capabilities");
  if (caps.is_array()) {
    for (const auto& c : caps) {
      if (!c.is_string()) continue;
      if (auto e = arch_entry(c.get<std::string>(), std::nullopt)) {
        t.entries.push_back(*e);
        t.listing += (t.listing.empty() ? "" : " ") + c.get<std::string>();
      }
    }
    if (!t.entries.empty()) {
      t.fact = r.path + ".build.cuda_compute_capabilities";
      t.what = "build_info.py";
      return t;
    }
  }
  return std::nullopt;
}

// The torch wheel that has kernels for compute capability `cc` and that the host's driver runs, when the
// framework is torch and the knowledge base names one.
std::optional<std::string> torch_wheel_of(const Json& report, const kb::KnowledgeBase& kb, const FwRef& r,
                                          const Version& cc) {
  auto version = Version::parse(version_text(*r.fw));
  if (r.fw->value("name", "") != "torch" || !version) return std::nullopt;
  return torch_wheel_for_gpu(kb, *version, cc, host_driver(report, kb).cuda);
}

// The build to install for a GPU: the torch wheel the knowledge base names, else the general advice.
std::string install_for(const Json& report, const kb::KnowledgeBase& kb, const FwRef& r, const Version& cc) {
  if (auto wheel = torch_wheel_of(report, kb, r, cc)) return *wheel;
  return "a newer CUDA variant of the framework (or one that carries its PTX), or a driver new enough to JIT the PTX it carries";
}

// The first CUDA that compiles SASS this GPU runs: an architecture of its major with a minor not above
// its own (sm_89 runs sm_80's, from CUDA 11.0). nullopt when the knowledge base knows none.
std::optional<Version> first_cuda_for_family(const kb::KnowledgeBase& kb, const Version& cc) {
  std::optional<Version> first;
  for (const auto& a : kb.archs()) {
    if (a.cc.major() != cc.major() || a.cc.minor() > cc.minor()) continue;
    auto since = a.first_cuda ? a.first_cuda : a.first_cuda_at_most;
    if (since && (!first || *since < *first)) first = since;
  }
  return first;
}

// For a GPU older than every architecture of the build: the torch wheel of the same release that still
// carries it (torch 2.8's cu126 for a Pascal GPU, where cu128 and cu129 dropped it), else the general advice.
std::string older_gpu_remedy(const Json& report, const kb::KnowledgeBase& kb, const FwRef& r,
                             const Version& cc) {
  if (auto wheel = torch_wheel_of(report, kb, r, cc))
    return "This GPU is older than every architecture the build targets: " + *wheel;
  return "This GPU is older than every architecture the build targets: install a build for an older CUDA variant "
         "that still lists it (e.g. PyTorch cu126 keeps sm_50-sm_70), or build from source with TORCH_CUDA_ARCH_LIST "
         "including it";
}

void architectures(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  auto gs = gpus(report, kb);
  if (gs.empty()) return;
  auto max_isa = driver_max_ptx_isa(host_driver(report, kb), kb);
  for (const auto& r : frameworks_in(report)) {
    auto t = targets_of(report, r);
    if (!t) continue;
    for (const auto& g : gs) {
      if (!g.cc) continue;
      inspect::GpuArch dev{static_cast<int>(g.cc->major()), static_cast<int>(g.cc->minor())};
      auto v = inspect::verdict(t->entries, dev, max_isa);
      if (v.kind == inspect::VerdictKind::kNative || v.kind == inspect::VerdictKind::kNoDeviceCode) continue;
      bool older = std::all_of(t->entries.begin(), t->entries.end(),
                               [&](const inspect::FatbinEntry& e) { return inspect::cc_less(dev, e.arch); });
      Finding f;
      if (v.kind == inspect::VerdictKind::kJit) {
        f = finding("frameworks.ptx_jit_needed", {{"framework", label(r)},
                                                  {"gpu", g.label},
                                                  {"cc_major", g.cc->major()},
                                                  {"cc_minor", g.cc->minor()},
                                                  {"image", v.image}});
      } else if (older) {
        f = finding(
            "frameworks.gpu_older_than_build",
            {{"problem",
              fmt::format(
                  "{} cannot run kernels on {}: {}; CUDA calls fail with 'no kernel image is available for execution on the device'",
                  label(r), g.label, v.reason)},
             {"remedy", older_gpu_remedy(report, kb, r, *g.cc)}});
        f.independent = true;
      } else {
        f = finding("frameworks.no_kernel_for_gpu", {{"framework", label(r)},
                                                     {"gpu", g.label},
                                                     {"reason", v.reason},
                                                     {"install", install_for(report, kb, r, *g.cc)}});
        f.independent = true;
      }
      f.evidence.push_back(evidence(t->fact, t->listing, "fatbin headers / build record of " + t->what));
      f.evidence.push_back(evidence(g.fact, g.cc->text(), g.source));
      f.docs.push_back(
          {"https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#binary-compatibility",
           "Binary Compatibility; Application Compatibility"});
      out.push_back(std::move(f));
    }
  }
  // JAX and CUDA-13 builds carry no readable architecture list here: the
  // knowledge base's minimum compute capability stands in.
  for (const auto& r : frameworks_in(report)) {
    if (targets_of(report, r)) continue;
    auto b = build_cuda(report, r);
    if (!b.major) continue;
    // No list, but the build's CUDA is older than any architecture the GPU runs (a CUDA 10.1 torch on
    // an RTX 4060): no SASS for it can be in the build, whatever the list was.
    for (const auto& g : gs) {
      auto since = g.cc && b.version ? first_cuda_for_family(kb, *g.cc) : std::nullopt;
      if (!since || !(*b.version < *since)) continue;
      auto f = finding(
          "frameworks.no_kernel_for_gpu",
          {{"framework", label(r)},
           {"gpu", g.label},
           {"reason",
            fmt::format("it is built with CUDA {}, and SASS that runs on sm_{}{} needs CUDA {} or newer",
                        b.version->text(), g.cc->major(), g.cc->minor(), since->text())},
           {"install", install_for(report, kb, r, *g.cc)}});
      f.independent = true;
      f.evidence.push_back(evidence_from(report, b.fact));
      f.evidence.push_back(evidence(g.fact, g.cc->text(), g.source));
      f.evidence.push_back(
          evidence("kb:architectures.first_cuda", since->text(), "knowledge base architectures"));
      out.push_back(std::move(f));
    }
    const Json* row = kb::framework_matrix_row(kb, r.fw->value("name", ""), "", b.major);
    if (!row || !row->contains("min_cc")) row = kb::framework_matrix_row(kb, "*", "", b.major);
    if (!row || !row->contains("min_cc")) continue;
    auto min = Version::parse((*row)["min_cc"].get<std::string>());
    for (const auto& g : gs) {
      if (!g.cc || !min || *g.cc >= *min) continue;
      auto f = finding(
          "frameworks.gpu_older_than_build",
          {{"problem",
            fmt::format("{} is built with CUDA {}, which supports compute capability {} and newer; {} is {}",
                        label(r), *b.major, min->text(), g.label, g.cc->text())},
           {"remedy",
            fmt::format("Use a CUDA {} build of {} for this GPU", *b.major - 1, r.fw->value("name", ""))}});
      f.independent = true;
      f.evidence.push_back(evidence_from(report, b.fact));
      f.evidence.push_back(evidence(g.fact, g.cc->text(), g.source));
      f.docs = kb_docs(kb, *row);
      out.push_back(std::move(f));
    }
  }
}

const RegisterRule kRule{
    {"frameworks", [](const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
       if (!present(report, "frameworks")) return;
       cpu_only_build(report, kb, out);
       onnxruntime_both_packages(report, out);
       rocm_build(report, kb, out);
       cuda_build_vs_driver(report, kb, out);
       architectures(report, kb, out);
       framework_libraries(report, kb, out);
       framework_mixed_majors(report, kb, out);
     }}};

}  // namespace

}  // namespace cudiag::rules