// Rules for the `frameworks` layer: what each Python framework was built for
// (its CUDA, its GPU architectures, the cuDNN/NCCL/cuBLAS it pins) against
// the driver, the GPUs and the libraries the loader would actually give it.
// Facts come from the report (probes/frameworks_probe.cpp); framework
// release matrices from the knowledge base table framework_matrix.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/pep440.h"
#include "inspect/arch_compat.h"
#include "inspect/verdict.h"
#include "kb/knowledge_base.h"
#include "rules/arch_targets.h"
#include "rules/engine.h"
#include "rules/rule_support.h"

namespace cudiag::rules {

namespace {

struct FwRef {
  std::string path;  // "frameworks.environments[0].frameworks[1]"
  const Json* fw;
  const Json* env;
  std::string env_path;
};

std::vector<FwRef> frameworks_in(const Json& report) {
  std::vector<FwRef> out;
  const Json& envs = value_at(report, "frameworks.environments");
  if (!envs.is_array()) return out;
  for (std::size_t i = 0; i < envs.size(); ++i) {
    // By reference into the report: the FwRefs point into it.
    if (!envs[i].contains("frameworks") || !envs[i]["frameworks"].is_array()) continue;
    const Json& fws = envs[i]["frameworks"];
    for (std::size_t j = 0; j < fws.size(); ++j)
      out.push_back({fmt::format("frameworks.environments[{}].frameworks[{}]", i, j), &fws[j], &envs[i],
                     fmt::format("frameworks.environments[{}]", i)});
  }
  return out;
}

std::string version_text(const Json& fw) {
  const Json& v = fw.contains("version") ? fw["version"] : Json();
  if (v.is_object() && v.contains("value") && v["value"].is_string()) return v["value"].get<std::string>();
  const Json& b = fw.contains("build") && fw["build"].contains("version") ? fw["build"]["version"] : Json();
  if (b.is_object() && b.contains("value") && b["value"].is_string()) return b["value"].get<std::string>();
  return "";
}

std::string label(const FwRef& r) {
  auto v = version_text(*r.fw);
  return fmt::format("{}{}{} in {}", r.fw->value("name", "?"), v.empty() ? "" : " ", v,
                     r.env->value("prefix", "?"));
}

// The knowledge base's framework_matrix sources as docs.
std::vector<DocRef> kb_docs(const kb::KnowledgeBase& kb, const Json& entry) {
  std::vector<DocRef> docs;
  const Json& table = kb.raw("framework_matrix");
  if (!entry.contains("source") || !table.is_object()) return docs;
  std::vector<Json> refs;
  if (entry["source"].is_array()) {
    for (const auto& s : entry["source"]) refs.push_back(s);
  } else {
    refs.push_back(entry["source"]);
  }
  for (const auto& s : refs) {
    const Json* src = &s;
    if (s.is_string() && table["sources"].contains(s.get<std::string>()))
      src = &table["sources"][s.get<std::string>()];
    if (src->is_object()) docs.push_back({src->value("url", ""), src->value("section", "")});
  }
  return docs;
}

// The framework_matrix row for a framework's installed release (and CUDA major, when given).
const Json* matrix_row(const kb::KnowledgeBase& kb, const std::string& framework, const std::string& version,
                       std::optional<long> cuda_major) {
  const Json& table = kb.raw("framework_matrix");
  if (!table.is_object() || !table.contains("entries")) return nullptr;
  auto v = Version::parse(version.substr(0, version.find('+')));
  for (const auto& e : table["entries"]) {
    if (e.value("framework", "") != framework) continue;
    if (e.contains("cuda_major") && cuda_major && e["cuda_major"].get<long>() != *cuda_major) continue;
    if (e.contains("release")) {
      auto rel = Version::parse(e["release"].get<std::string>());
      if (!v || !rel) continue;
      bool match = true;
      for (std::size_t i = 0; i < rel->parts().size(); ++i) match = match && v->part(i) == rel->part(i);
      if (!match) continue;
    }
    return &e;
  }
  return nullptr;
}

const Json& fw_value(const Json& report, const FwRef& r, const std::string& sub) {
  return value_at(report, r.path + "." + sub);
}

// ---------------------------------------------------------------------------

void cpu_only_build(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  auto gs = gpus(report, kb);
  if (gs.empty()) return;
  for (const auto& r : frameworks_in(report)) {
    if (fw_value(report, r, "build.cpu_only") != true) continue;
    std::string name = r.fw->value("name", "");
    Finding f;
    f.id = "frameworks.cpu_only_build_with_gpu";
    f.layer = "frameworks";
    f.severity = Severity::kWarning;
    f.message =
        fmt::format("{} is a CPU-only build, but this machine has {}: it will run everything on the CPU",
                    label(r), gs.front().label);
    f.evidence.push_back(evidence_from(report, r.path + ".build.cpu_only"));
    if (present(report, r.path + ".build.cuda"))
      f.evidence.push_back(evidence_from(report, r.path + ".build.cuda"));
    f.evidence.push_back(evidence(gs.front().fact, gs.front().label, gs.front().source));
    if (name == "torch")
      f.remediation =
          "Install a CUDA build of PyTorch for a CUDA version the driver supports, e.g. pip install torch "
          "--index-url "
          "https://download.pytorch.org/whl/cu126 (Linux wheels on PyPI are CUDA builds; +cpu and "
          "distribution packages are not)";
    else if (name == "tensorflow")
      f.remediation =
          "pip install 'tensorflow[and-cuda]' (Linux) instead of tensorflow-cpu or a CPU-only build";
    else if (name == "onnxruntime")
      f.remediation =
          "pip uninstall onnxruntime && pip install onnxruntime-gpu (the two packages conflict when both are "
          "installed)";
    else if (name == "jax")
      f.remediation = "pip install -U 'jax[cuda12]' (driver >= 525) or 'jax[cuda13]' (driver >= 580)";
    else
      f.remediation = "Install the framework's CUDA build";
    f.docs.push_back(
        {"https://pytorch.org/get-started/locally/", "Start Locally: choose the CUDA compute platform"});
    out.push_back(std::move(f));
  }
}

// What CUDA a framework's build needs: "12.4" from torch/version.py or
// build_info.py; for packages that record only a major (CuPy, ONNX Runtime,
// JAX plugins) the major alone.
struct BuildCuda {
  std::optional<Version> version;  // major.minor when known
  std::optional<long> major;
  std::string fact;
};

BuildCuda build_cuda(const Json& report, const FwRef& r) {
  BuildCuda b;
  for (const char* sub : {"build.cuda"}) {
    const Json& v = fw_value(report, r, sub);
    if (v.is_string()) {
      if (auto p = Version::parse(v.get<std::string>())) {
        b.version = Version::parse(fmt::format("{}.{}", p->major(), p->minor()));
        b.major = p->major();
        b.fact = r.path + "." + sub;
        return b;
      }
    }
  }
  const Json& m = fw_value(report, r, "build.cuda_major");
  if (m.is_number_integer()) {
    b.major = m.get<long>();
    b.fact = r.path + ".build.cuda_major";
  }
  return b;
}

void cuda_build_vs_driver(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  auto d = host_driver(report, kb);
  if (!d.cuda) return;
  for (const auto& r : frameworks_in(report)) {
    auto b = build_cuda(report, r);
    if (!b.major) continue;
    std::string name = r.fw->value("name", "");
    Finding f;
    f.id = "frameworks.cuda_build_needs_newer_driver";
    f.layer = "frameworks";
    f.independent = true;
    f.evidence.push_back(evidence_from(report, b.fact));
    add_driver_evidence(f, report, d);
    std::string built = b.version ? b.version->text() : fmt::format("{}.x", *b.major);
    if (*b.major > d.cuda->major()) {
      f.severity = Severity::kError;
      f.message = fmt::format(
          "{} is built for CUDA {}, but the driver {} supports CUDA {} at most: CUDA calls fail with "
          "cudaErrorInsufficientDriver (35)",
          label(r), built, describe(d), d.cuda->text());
      auto branch =
          first_branch_for_cuda(kb, b.version ? *b.version : Version::from_cuda_int(*b.major * 1000));
      f.remediation =
          branch
              ? fmt::format("Install driver branch R{} or newer, or a build of {} for CUDA {}.x", *branch,
                            name, d.cuda->major())
              : fmt::format("Install a newer driver, or a build of {} for CUDA {}.x", name, d.cuda->major());
    } else if (b.version && *b.version > *d.cuda) {
      // Same major: minor-version compatibility runs it when the driver is at
      // least the major's MVC floor, with the limits MVC has.
      const auto* mvc = kb.mvc_for_major(b.version->major());
      auto floor = mvc ? mvc->min_for("linux", *b.version) : std::nullopt;
      if (floor && d.version && *d.version < *floor) {
        f.severity = Severity::kError;
        f.message = fmt::format(
            "{} is built for CUDA {}; the driver {} is below CUDA {}.x's minor-version-compatibility floor "
            "{}",
            label(r), built, describe(d), b.version->major(), floor->text());
      } else {
        f.severity = Severity::kWarning;
        f.message = fmt::format(
            "{} is built for CUDA {}, newer than the driver's CUDA {}: it runs through minor-version "
            "compatibility, where PTX "
            "compiled by the newer toolkit cannot be JIT-compiled (CUDA_ERROR_UNSUPPORTED_PTX_VERSION) and "
            "APIs added after "
            "CUDA {} fail",
            label(r), built, d.cuda->text(), d.cuda->text());
      }
      auto branch = first_branch_for_cuda(kb, *b.version);
      f.remediation =
          branch ? fmt::format(
                       "Install driver branch R{} or newer (CUDA {}), or a {} build for CUDA {} or older",
                       *branch, built, name, d.cuda->text())
                 : fmt::format("Install a newer driver, or a {} build for CUDA {} or older", name,
                               d.cuda->text());
      if (mvc) add_docs(f, *mvc);
    } else {
      continue;
    }
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
    const Json* row = matrix_row(kb, "jax", "", b.major);
    if (!row || !row->contains("min_driver")) continue;
    auto min = Version::parse((*row)["min_driver"].get<std::string>());
    if (!min || *d.version >= *min) continue;
    Finding f;
    f.id = "frameworks.cuda_build_needs_newer_driver";
    f.layer = "frameworks";
    f.independent = true;
    f.severity = Severity::kError;
    f.message = fmt::format("{} uses CUDA {} plugins, which need driver {} or newer; this driver is {}",
                            label(r), *b.major, min->text(), describe(d));
    f.evidence.push_back(evidence_from(report, b.fact));
    f.evidence.push_back(
        evidence("kb:framework_matrix.jax.min_driver", min->text(), "knowledge base framework_matrix"));
    add_driver_evidence(f, report, d);
    f.remediation =
        fmt::format("Install driver {} or newer, or jax[cuda12] on an older driver (>= 525)", min->text());
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
      Finding f;
      f.layer = "frameworks";
      f.evidence.push_back(evidence(t->fact, t->listing, "fatbin headers / build record of " + t->what));
      f.evidence.push_back(evidence(g.fact, g.cc->text(), g.source));
      if (v.kind == inspect::VerdictKind::kNative || v.kind == inspect::VerdictKind::kNoDeviceCode) continue;
      bool older = std::all_of(t->entries.begin(), t->entries.end(),
                               [&](const inspect::FatbinEntry& e) { return inspect::cc_less(dev, e.arch); });
      if (v.kind == inspect::VerdictKind::kJit) {
        f.id = "frameworks.ptx_jit_needed";
        f.severity = Severity::kWarning;
        f.message = fmt::format(
            "{} has no SASS for {} (sm_{}{}); the driver JIT-compiles {} at first use: the first CUDA call "
            "takes minutes and "
            "the result is cached in ~/.nv/ComputeCache (CUDA_CACHE_MAXSIZE)",
            label(r), g.label, g.cc->major(), g.cc->minor(), v.image);
        f.remediation =
            "Install a build whose architecture list includes this GPU (a newer CUDA variant of the "
            "framework), or "
            "raise CUDA_CACHE_MAXSIZE so the JIT result is kept";
      } else {
        f.id = older ? "frameworks.gpu_older_than_build" : "frameworks.no_kernel_for_gpu";
        f.severity = Severity::kError;
        f.independent = true;
        f.message = fmt::format(
            "{} cannot run kernels on {}: {}; CUDA calls fail with 'no kernel image is available for "
            "execution on the device'",
            label(r), g.label, v.reason);
        f.remediation =
            older
                ? "This GPU is older than every architecture the build targets: install a build for an older "
                  "CUDA variant that still lists it (e.g. PyTorch cu126 keeps sm_50-sm_70), or build from "
                  "source "
                  "with TORCH_CUDA_ARCH_LIST including it"
                : "Install a build that includes this architecture (or its PTX), or a driver new enough to "
                  "JIT "
                  "the PTX it carries";
      }
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
    const Json* row = matrix_row(kb, r.fw->value("name", ""), "", b.major);
    if (!row || !row->contains("min_cc")) row = matrix_row(kb, "*", "", b.major);
    if (!row || !row->contains("min_cc")) continue;
    auto min = Version::parse((*row)["min_cc"].get<std::string>());
    for (const auto& g : gs) {
      if (!g.cc || !min || *g.cc >= *min) continue;
      Finding f;
      f.id = "frameworks.gpu_older_than_build";
      f.layer = "frameworks";
      f.severity = Severity::kError;
      f.independent = true;
      f.message =
          fmt::format("{} is built with CUDA {}, which supports compute capability {} and newer; {} is {}",
                      label(r), *b.major, min->text(), g.label, g.cc->text());
      f.evidence.push_back(evidence_from(report, b.fact));
      f.evidence.push_back(evidence(g.fact, g.cc->text(), g.source));
      f.remediation =
          fmt::format("Use a CUDA {} build of {} for this GPU", *b.major - 1, r.fw->value("name", ""));
      f.docs = kb_docs(kb, *row);
      out.push_back(std::move(f));
    }
  }
}

// The wheel component that provides a library: cudnn -> "cudnn", cudart -> "cuda-runtime".
std::string component_of(const std::string& library) {
  if (library == "cudart") return "cuda-runtime";
  if (library == "nvrtc") return "cuda-nvrtc";
  if (library == "cupti") return "cuda-cupti";
  return library;
}

// The framework's own requirement on the wheel providing `library`.
const Json* requirement_for(const Json& fw, const std::string& library) {
  if (!fw.contains("requires")) return nullptr;
  auto comp = component_of(library);
  for (const auto& r : fw["requires"]) {
    auto name = r.value("name", "");
    if (name == "nvidia-" + comp ||
        (name.starts_with("nvidia-" + comp + "-cu") && name.size() <= comp.size() + 12))
      return &r;
  }
  return nullptr;
}

std::string version_of_load(const Json& load) {
  const Json& v = load.contains("version") ? load["version"] : Json();
  return v.is_object() && v["value"].is_string() ? v["value"].get<std::string>() : "";
}

void libraries(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  for (const auto& r : frameworks_in(report)) {
    const Json& loads = r.fw->contains("loads") ? (*r.fw)["loads"] : Json();
    if (!loads.is_array()) continue;
    for (std::size_t i = 0; i < loads.size(); ++i) {
      const auto& l = loads[i];
      auto lpath = fmt::format("{}.loads[{}]", r.path, i);
      auto soname = l.value("soname", "");
      auto library = l.value("library", "");
      if (l["path"].is_null()) {
        Finding f;
        f.id = "frameworks.library_not_found";
        f.layer = "frameworks";
        bool needed = l.value("how", "") == "DT_NEEDED";
        f.severity = needed ? Severity::kError : Severity::kWarning;
        f.message =
            needed
                ? fmt::format(
                      "{} needs {} ({} of {}), and the loader finds none: the import fails with '{}: cannot "
                      "open shared object file'",
                      label(r), soname, l.value("how", ""), l.value("needed_by", ""), soname)
                : fmt::format("{} opens {} at run time and the loader finds none: it falls back to the CPU",
                              label(r), soname);
        f.evidence.push_back(
            evidence(lpath, l, "loader emulation (RPATH, LD_LIBRARY_PATH, RUNPATH, ld.so.cache, defaults)"));
        const Json* req = requirement_for(*r.fw, library);
        f.remediation =
            req ? fmt::format("pip install '{}{}' into this environment", (*req)["name"].get<std::string>(),
                              (*req)["spec"].get<std::string>())
                : fmt::format(
                      "Install the library that provides {} (a nvidia-* wheel or the system package) or add "
                      "its directory to LD_LIBRARY_PATH",
                      soname);
        out.push_back(std::move(f));
        continue;
      }
      auto have = version_of_load(l);
      // Against the framework's own pin (Requires-Dist).
      if (const Json* req = requirement_for(*r.fw, library); req && !have.empty()) {
        auto spec = (*req)["spec"].get<std::string>();
        if (!spec.empty() && !version_satisfies(have, spec)) {
          auto have_v = Version::parse(have);
          bool major_differs = false;
          if (auto digits = spec.find_first_of("0123456789"); digits != std::string::npos && have_v)
            major_differs = std::atol(spec.c_str() + digits) != have_v->major();
          Finding f;
          f.id = "frameworks.library_version_mismatch";
          f.layer = "frameworks";
          f.severity = major_differs ? Severity::kError : Severity::kWarning;
          f.message = fmt::format("{} requires {}{} but would load {} {} from {} ({})", label(r),
                                  (*req)["name"].get<std::string>(), spec, soname, have, l.value("path", ""),
                                  l.value("via", ""));
          f.evidence.push_back(
              evidence(r.path + ".requires", *req, "Requires-Dist in the framework's METADATA"));
          f.evidence.push_back(evidence_from(report, lpath + ".version"));
          f.remediation =
              fmt::format("pip install '{}{}' in this environment{}", (*req)["name"].get<std::string>(), spec,
                          l.value("via", "") == "LD_LIBRARY_PATH"
                              ? ", and drop the other copy's directory from LD_LIBRARY_PATH"
                              : "");
          out.push_back(std::move(f));
        }
      }
      // Against the build record (TensorFlow's cudnn_version "9.3").
      if (library == "cudnn" && !have.empty()) {
        const Json& built = fw_value(report, r, "build.cudnn");
        auto bv = built.is_string() ? Version::parse(built.get<std::string>()) : std::nullopt;
        auto hv = Version::parse(have);
        if (bv && hv && bv->parts().size() >= 2 && hv->major() == bv->major() && hv->minor() < bv->minor()) {
          Finding f;
          f.id = "frameworks.library_version_mismatch";
          f.layer = "frameworks";
          f.severity = Severity::kWarning;
          f.message = fmt::format(
              "{} was built with cuDNN {} but would load cuDNN {} from {}: cuDNN is backward- but not "
              "forward-compatible within a major",
              label(r), bv->text(), have, l.value("path", ""));
          f.evidence.push_back(evidence_from(report, r.path + ".build.cudnn"));
          f.evidence.push_back(evidence_from(report, lpath + ".version"));
          f.remediation = fmt::format("Install cuDNN {} or newer (within {}.x)", bv->text(), bv->major());
          out.push_back(std::move(f));
        }
      }
      // Shadowing: a copy from outside the environment while the environment has the wheel for it.
      if (!l.contains("wheel")) {
        const Json& wheels = r.env->contains("nvidia_wheels") ? (*r.env)["nvidia_wheels"] : Json();
        for (std::size_t w = 0; wheels.is_array() && w < wheels.size(); ++w) {
          const auto& wh = wheels[w];
          if (wh.value("component", "") != component_of(library) || wh["lib_dir"].is_null()) continue;
          auto soname_major = soname.substr(soname.rfind(".so.") + 4);
          if (wh["cuda_major"].is_number_integer() && library != "cudnn" && library != "nccl" &&
              library != "cusparse" && library != "cusolver" && library != "cufft" && library != "curand" &&
              std::to_string(wh["cuda_major"].get<long>()) != soname_major)
            continue;
          auto wv = wh["version"].value("value", "");
          auto hv = Version::parse(have);
          auto wvv = Version::parse(wv);
          Finding f;
          f.id = "frameworks.library_shadowed";
          f.layer = "frameworks";
          bool older = hv && wvv && *hv < *wvv;
          f.severity = older ? Severity::kError : Severity::kWarning;
          f.message = fmt::format(
              "{} would load {} {} from {} ({}), not the {} {} wheel installed beside it{}", label(r), soname,
              have.empty() ? "(version unknown)" : have, l.value("path", ""), l.value("via", ""),
              wh.value("name", ""), wv,
              older ? ": an older copy than the wheel's, which the framework's other libraries were built "
                      "against (e.g. 'undefined symbol: __nvJitLinkAddData_12_x')"
                    : "");
          f.evidence.push_back(evidence_from(report, lpath + ".version"));
          f.evidence.push_back(evidence(fmt::format("{}.nvidia_wheels[{}]", r.env_path, w), wh,
                                        "dist-info of " + wh.value("name", "")));
          f.remediation =
              l.value("via", "") == "LD_LIBRARY_PATH"
                  ? fmt::format("Remove {} from LD_LIBRARY_PATH when running this environment",
                                dir_of(l.value("path", "")))
                  : fmt::format("Make the wheel's copy win: remove or upgrade {}", l.value("path", ""));
          out.push_back(std::move(f));
          break;
        }
      }
    }
  }
  (void)kb;
}

void mixed_majors(const Json& report, const kb::KnowledgeBase&, std::vector<Finding>& out) {
  const Json& envs = value_at(report, "frameworks.environments");
  if (!envs.is_array()) return;
  for (std::size_t i = 0; i < envs.size(); ++i) {
    const auto& env = envs[i];
    std::map<long, std::vector<std::string>> by_major;
    std::vector<Evidence> ev;
    const Json& fws = env.value("frameworks", Json::array());
    for (std::size_t j = 0; j < fws.size(); ++j) {
      FwRef r{fmt::format("frameworks.environments[{}].frameworks[{}]", i, j), &fws[j], &env, ""};
      auto b = build_cuda(report, r);
      if (!b.major) continue;
      by_major[*b.major].push_back(label(r));
      ev.push_back(evidence_from(report, b.fact));
    }
    if (by_major.size() > 1) {
      std::string parts;
      for (const auto& [m, names] : by_major) {
        for (const auto& n : names) parts += fmt::format("{}{} (CUDA {})", parts.empty() ? "" : ", ", n, m);
      }
      Finding f;
      f.id = "frameworks.mixed_cuda_majors";
      f.layer = "frameworks";
      f.severity = Severity::kWarning;
      f.message = fmt::format(
          "Frameworks in {} need different CUDA majors: {}; importing both in one process loads two CUDA "
          "runtimes and whichever loads first wins for shared libraries such as cuDNN and NCCL",
          env.value("prefix", "?"), parts);
      f.evidence = ev;
      f.remediation =
          "Install builds for one CUDA major in this environment, or keep the frameworks in separate "
          "environments";
      out.push_back(std::move(f));
    }
    std::map<long, std::vector<std::string>> wheels;
    for (const auto& w : env.value("nvidia_wheels", Json::array())) {
      if (w["cuda_major"].is_number_integer())
        wheels[w["cuda_major"].get<long>()].push_back(w.value("name", ""));
    }
    if (wheels.size() > 1) {
      std::string parts;
      for (const auto& [m, names] : wheels)
        parts += fmt::format("{}CUDA {}: {}", parts.empty() ? "" : "; ", m, fmt::join(names, ", "));
      Finding f;
      f.id = "frameworks.mixed_cuda_wheels";
      f.layer = "frameworks";
      f.severity = Severity::kWarning;
      f.message = fmt::format("{} holds nvidia-* wheels for more than one CUDA major ({})",
                              env.value("prefix", "?"), parts);
      f.evidence.push_back(evidence(fmt::format("frameworks.environments[{}].nvidia_wheels", i),
                                    env["nvidia_wheels"], "dist-info directories"));
      f.remediation = "Uninstall the wheels of the CUDA major no framework in this environment is built for";
      out.push_back(std::move(f));
    }
  }
}

const RegisterRule kRule{
    {"frameworks", [](const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
       if (!present(report, "frameworks")) return;
       cpu_only_build(report, kb, out);
       cuda_build_vs_driver(report, kb, out);
       architectures(report, kb, out);
       libraries(report, kb, out);
       mixed_majors(report, kb, out);
     }}};

}  // namespace

}  // namespace cudiag::rules
