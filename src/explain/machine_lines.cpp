// The machine-specific part of an explanation: what this machine's report
// says about the layer the message points at. Each check reads the report
// through the rules' helpers (a missing fact is "unknown", never a default)
// and says only what the report shows.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "core/fact.h"
#include "explain/captures.h"
#include "explain/explain.h"
#include "explain/library_cuda.h"
#include "explain/machine_context.h"
#include "model/cuda_runtimes.h"
#include "rules/finding.h"
#include "rules/framework_support.h"
#include "rules/rule_support.h"
#include "rules/torch_variants.h"

namespace cudiag::explain {

namespace {

using rules::string_at;
using rules::value_at;
using rules::version_at;

// The value of the fact `key` of `obj`, or null (never a reference to a temporary).
const Json& field_value(const Json& obj, const char* key) {
  static const Json null_json;
  auto it = obj.find(key);
  return it == obj.end() ? null_json : fact_value(*it);
}

std::string file_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string raw_driver_version(const Json& report) {
  const Json& f = model::fact_at(report, "driver_api.cuda_driver_version");
  if (f.is_object() && f.contains("raw") && f["raw"].is_number_integer())
    return fmt::format(" (cuDriverGetVersion {})", f["raw"].get<long>());
  return "";
}

std::string driver_needed(const kb::KnowledgeBase& kb, const Version& cuda) {
  auto req = kb.driver_for_cuda(cuda);
  if (req && req->full_min)
    return fmt::format("install driver {} or newer (cudiag kb driver-for {})", req->full_min->text(),
                       cuda.text());
  return fmt::format("install a driver that supports CUDA {}", cuda.text());
}

void check_driver(const Context& c) {
  auto d = rules::host_driver(c.report, c.kb);
  if (!d.version && !d.cuda) {
    c.out.push_back(
        "cudiag found no NVIDIA driver answering on this machine (no kernel module version, no NVML or "
        "libcuda answer).");
    // The toolkit's nvcc still says which driver its PTX and runtime need.
    if (auto v = nvcc_version(c.report)) {
      auto cuda = Version::parse(fmt::format("{}.{}", v->major(), v->minor()));
      c.out.push_back(
          fmt::format("nvcc is CUDA {}: what it builds (PTX and its runtime) needs a driver for CUDA {}: "
                      "{}.",
                      cuda->text(), cuda->text(), driver_needed(c.kb, *cuda)));
    }
    return;
  }
  std::string cuda = d.cuda ? d.cuda->text() : "unknown";
  if (!d.cuda && d.version && !c.kb.driver_branches().empty()) {
    // Older than the oldest branch listed: an unknown stays unknown, never "supported".
    const auto& oldest = c.kb.driver_branches().front();
    c.out.push_back(
        fmt::format("Your driver {} is older than every branch the knowledge base lists (the oldest, "
                    "R{}, supports CUDA {}): which CUDA it supports is unknown, and no CUDA {} or newer "
                    "runs on it.",
                    d.version->text(), oldest.branch, oldest.cuda.text(), oldest.cuda.text()));
    return;
  }
  c.out.push_back(fmt::format(
      "Your driver {} supports CUDA up to {}{}.", d.version ? d.version->text() : "(version unknown)", cuda,
      d.cuda_fact == "driver_api.cuda_driver_version" ? raw_driver_version(c.report) : ""));
  if (!d.cuda) return;
  for (const auto& text : values_of_kind(c, CaptureKind::kRequiredCuda)) {
    auto need = Version::parse(text);
    if (!need) continue;
    if (*d.cuda >= *need) {
      c.out.push_back(fmt::format(
          "This driver already supports CUDA {}: the message came from another driver (another machine, a "
          "container that sees another libcuda, or before a driver upgrade).",
          need->text()));
    } else {
      c.out.push_back(
          fmt::format("This message needs a driver that supports CUDA {}; yours supports {} -> {}.",
                      need->text(), cuda, driver_needed(c.kb, *need)));
      if (c.fix.empty())
        c.fix = fmt::format("The driver {} supports CUDA up to {}; this needs CUDA {}: {}.",
                            d.version ? d.version->text() : "here", cuda, need->text(),
                            driver_needed(c.kb, *need));
    }
  }
  for (const auto& name : c.sig.captures) {
    if (name.kind != CaptureKind::kDriverCudaInt) continue;
    auto seen = value_of(c.e, name.name + "_cuda");
    auto v = Version::parse(seen);
    if (!v) continue;
    if (*v == *d.cuda) {
      c.out.push_back(fmt::format(
          "The message's driver reported CUDA {}, as this machine's does: the program needs a newer CUDA "
          "than "
          "this driver supports; install a newer driver or a build of the program for CUDA {} or older.",
          seen, seen));
    } else {
      c.out.push_back(fmt::format(
          "The message's driver reported CUDA {} but this machine's supports {}: the message came from "
          "another driver (another machine, a container, or before an upgrade).",
          seen, cuda));
    }
  }
}

void check_runtimes(const Context& c) {
  auto d = rules::host_driver(c.report, c.kb);
  const Json& runtimes = model::fact_at(c.report, "cuda_runtime.runtimes");
  if (!runtimes.is_array() || runtimes.empty()) {
    c.out.push_back(
        "cudiag found no libcudart on this machine's library search: the program brings its own (static, "
        "wheel or "
        "container).");
    return;
  }
  bool any_newer = false;
  std::vector<std::string> fine;
  for (const auto& r : runtimes) {
    std::string path = r.value("path", "");
    const Json& rv = field_value(r, "runtime_version");
    auto version = rv.is_string() ? Version::parse(rv.get<std::string>()) : std::nullopt;
    if (!version) continue;
    if (!d.cuda) continue;  // the driver's CUDA is unknown: nothing to say either way
    if (*version <= *d.cuda) {
      fine.push_back(fmt::format("{} (CUDA {})", file_name(path), version->text()));
      continue;
    }
    any_newer = true;
    std::string line = fmt::format("{} is CUDA runtime {}, newer than your driver's {}", path,
                                   version->text(), d.cuda->text());
    if (version->major() == d.cuda->major()) {
      line += "; same major version, so minor-version compatibility should let it run";
    } else {
      line += " -> " + driver_needed(c.kb, *version);
    }
    const Json& count = field_value(r, "cudaGetDeviceCount");
    if (count.is_string())
      line += fmt::format(" (here its cudaGetDeviceCount returns {})", count.get<std::string>());
    c.out.push_back(line + ".");
  }
  if (!any_newer && !fine.empty()) {
    c.out.push_back(fmt::format(
        "Every libcudart cudiag found here ({}) is supported by this driver: the failing program uses "
        "another runtime (linked in statically, from a wheel or in a container).",
        join(fine, ", ")));
  }
}

void check_gpus(const Context& c) {
  auto gpus = rules::gpus(c.report, c.kb);
  if (gpus.empty()) {
    c.out.push_back(rules::gpus_known(c.report) ? "cudiag sees no NVIDIA GPU on this machine."
                                                : "The report says nothing about this machine's GPUs.");
    return;
  }
  for (const auto& g : gpus) {
    std::string cc =
        g.cc ? fmt::format("compute capability {} (sm_{}{})", g.cc->text(), g.cc->major(), g.cc->minor())
             : "compute "
               "capability unknown";
    c.out.push_back(fmt::format("GPU {}: {}.", g.label, cc));
  }
}

// A program or library built without this GPU's kernels: name the architecture to build for.
void check_build_for_gpu(const Context& c) {
  auto gpus = rules::gpus(c.report, c.kb);
  if (gpus.empty() || !gpus.front().cc || !c.fix.empty()) return;
  const auto& first = gpus.front();
  auto sm = first.cc->major() * 10 + first.cc->minor();
  c.fix = fmt::format(
      "Build for this GPU's architecture: {} is compute capability {} (sm_{}): -gencode "
      "arch=compute_{},code=sm_{}, CMAKE_CUDA_ARCHITECTURES={}, TORCH_CUDA_ARCH_LIST=\"{}\" for PyTorch "
      "extensions; or install a prebuilt package whose architecture list includes sm_{} (cudiag inspect "
      "FILE lists a binary's).",
      first.label, first.cc->text(), sm, sm, sm, sm, first.cc->text(), sm);
  // A GPU from Ampere on is new to builds made before its CUDA: name the first CUDA (and PyTorch's wheel
  // tag) that can carry it, since a prebuilt package older than that never will.
  const auto* arch = c.kb.arch_for_cc(*first.cc);
  if (arch && arch->first_cuda && arch->first_cuda->major() >= 11) {
    c.fix += fmt::format(
        " Prebuilt binaries carry sm_{} only from CUDA {} on: for PyTorch a {} or later wheel (pip install "
        "torch --index-url https://download.pytorch.org/whl/{}).",
        sm, arch->first_cuda->text(), arch->first_cuda->cuda_tag(), arch->first_cuda->cuda_tag());
  }
}

// A program whose CUDA (its nvcc, its NVRTC) is older than the GPU: name the first CUDA that targets it.
void check_toolkit_for_gpu(const Context& c) {
  auto gpus = rules::gpus(c.report, c.kb);
  if (gpus.empty() || !gpus.front().cc || !c.fix.empty()) return;
  const auto& g = gpus.front();
  const auto* arch = c.kb.arch_for_cc(*g.cc);
  if (!arch || !arch->first_cuda) return;
  std::string tag = arch->first_cuda->cuda_tag();
  c.fix = fmt::format(
      "{} is {} ({}), which CUDA {} is the first to target: use CUDA {} or newer (the toolkit on PATH and in "
      "CUDA_HOME; for PyTorch, whose NVRTC comes with the wheel, a {} or later wheel: pip install torch "
      "--index-url https://download.pytorch.org/whl/{}).",
      g.label, arch->sm, arch->name, arch->first_cuda->text(), arch->first_cuda->text(), tag, tag);
}

// The CUDA releases this machine has: its runtimes and the toolkit's nvcc.
std::vector<std::pair<Version, std::string>> machine_cudas(const Context& c) {
  std::vector<std::pair<Version, std::string>> out;
  auto add = [&](const Version& v, const std::string& what) {
    auto mm = Version::parse(fmt::format("{}.{}", v.major(), v.minor()));
    if (mm && std::none_of(out.begin(), out.end(), [&](const auto& p) { return p.first == *mm; }))
      out.emplace_back(*mm, what);
  };
  for (const auto& r : model::derive_cuda_runtimes(c.report, &c.kb)) {
    if (r.version) add(*r.version, "libcudart");
  }
  if (auto v = nvcc_version(c.report)) add(*v, "nvcc");
  return out;
}

// A library of another CUDA than the machine has: the program was built for that CUDA, so the
// program (its build for this CUDA) is what changes, not the loader path.
void check_soname_cuda(const Context& c) {
  auto have = machine_cudas(c);
  if (have.empty() || !c.fix.empty()) return;
  for (const auto& soname : values_of_kind(c, CaptureKind::kSoname)) {
    auto wanted = cuda_of_soname(c.kb, soname);
    if (!wanted) continue;
    if (std::any_of(have.begin(), have.end(), [&](const auto& h) { return provides(*wanted, h.first); }))
      continue;
    std::vector<std::string> names;
    for (const auto& h : have) names.push_back(fmt::format("CUDA {} ({})", h.first.text(), h.second));
    std::string mine = have.front().first.text();
    c.out.push_back(
        fmt::format("{} belongs to {}; this machine has {}.", soname, describe(*wanted), join(names, ", ")));
    c.fix = fmt::format(
        "The program or package was built for {} ({}), not the CUDA {} installed: install its build for CUDA {} "
        "(the package's CUDA variant: a cuXY wheel or index, mxnet-cuXY, cupy-cudaXYx, RAPIDS -cuXY packages; "
        "the framework release that matches), or rebuild it against CUDA {} (delete build/ and compile again); "
        "or install the {} runtime libraries beside CUDA {}.",
        describe(*wanted), soname, mine, mine, mine, describe(*wanted), mine);
    c.layer = "frameworks";
    return;
  }
}

// A torch whose wheel's architecture list is known, on a GPU that is not: name the newest
// architecture it carries and the wheel of the same release that carries the most.
void check_torch_build(const Context& c) {
  if (!rules::gpus(c.report, c.kb).empty()) return;  // a known GPU: the frameworks rules decide
  for (const auto& r : rules::frameworks_in(c.report)) {
    if (r.fw->value("name", "") != "torch") continue;
    const Json& archs = rules::fw_value(c.report, r, "build.cuda_compute_capabilities");
    auto version = Version::parse(rules::version_text(*r.fw));
    if (!archs.is_array() || archs.empty() || !version) continue;
    std::string listing;
    for (const auto& a : archs) listing += (listing.empty() ? "" : " ") + a.get<std::string>();
    const Json& cuda = rules::fw_value(c.report, r, "build.cuda");
    std::string build = cuda.is_string()
                            ? fmt::format("{} (CUDA {})", version->text(), cuda.get<std::string>())
                            : version->text();
    c.out.push_back(fmt::format("torch {}'s wheel carries {} only.", build, listing));
    auto wider = rules::torch_widest_wheel(c.kb, *version, cuda.is_string() ? cuda.get<std::string>() : "");
    if (wider && c.fix.empty())
      c.fix = fmt::format(
          "torch {} carries {} only: a GPU of a newer architecture has no kernels in it. Install the variant "
          "that carries the newest: {}.",
          build, listing, *wider);
    return;
  }
}

bool loaded(const Json& v) { return (v.is_boolean() && v.get<bool>()) || v.is_object() || v.is_string(); }

void check_devices(const Context& c) {
  const Json& module = value_at(c.report, "kernel_driver.modules.nvidia");
  if (!module.is_null())
    c.out.push_back(loaded(module) ? "The nvidia kernel module is loaded."
                                   : "The nvidia kernel module is not loaded.");
  const Json& uvm = value_at(c.report, "kernel_driver.modules.nvidia_uvm");
  if (!uvm.is_null() && !loaded(uvm)) c.out.push_back("The nvidia_uvm kernel module is not loaded.");
  const Json& nodes = model::fact_at(c.report, "kernel_driver.device_nodes");
  std::vector<std::string> missing, blocked;
  if (nodes.is_array()) {
    for (const auto& n : nodes) {
      std::string path = n.value("path", "");
      if (!n.value("exists", false)) {
        missing.push_back(path);
      } else if (!n.value("accessible", true)) {
        blocked.push_back(path);
      }
    }
  }
  if (!missing.empty()) c.out.push_back(fmt::format("Missing device nodes: {}.", join(missing, ", ")));
  if (!blocked.empty())
    c.out.push_back(fmt::format("Device nodes this user cannot open: {}.", join(blocked, ", ")));
  auto init = string_at(c.report, "driver_api.cuInit");
  if (init) {
    auto code = rules::code_at(c.report, "driver_api.cuInit");
    c.out.push_back(
        fmt::format("cuInit on this machine returns {}{}.", *init, code ? fmt::format(" ({})", *code) : ""));
  }
}

void check_kernel_vs_user(const Context& c) {
  std::vector<std::pair<std::string, std::optional<Version>>> parts = {
      {"kernel module", version_at(c.report, "kernel_driver.version")},
      {"libnvidia-ml", version_at(c.report, "nvml.library_version")},
      {"libcuda", version_at(c.report, "driver_api.library_version")},
  };
  std::vector<std::string> known;
  std::optional<Version> first;
  bool differ = false;
  for (const auto& [name, v] : parts) {
    if (!v) continue;
    known.push_back(fmt::format("{} {}", name, v->text()));
    if (!first) {
      first = v;
    } else if (*v != *first) {
      differ = true;
    }
  }
  if (known.empty()) {
    c.out.push_back("The report has no driver version (no kernel module, NVML or libcuda version).");
    return;
  }
  if (!version_at(c.report, "kernel_driver.version"))
    known.push_back("kernel module not loaded or unreadable");
  c.out.push_back(fmt::format("On this machine: {}{}.", join(known, ", "),
                              known.size() < 2 ? "" : (differ ? " - they differ" : " - they match")));
}

void check_forward_compat(const Context& c) {
  auto picked = string_at(c.report, "driver_api.picked");
  auto compat = rules::bool_at(c.report, "driver_api.forward_compat_package");
  if (!picked) {
    c.out.push_back("The report shows no libcuda the loader would pick.");
    return;
  }
  if (compat && *compat) {
    c.out.push_back(fmt::format(
        "The libcuda the loader picks, {}, is a forward-compatibility (cuda-compat) package.", *picked));
  } else {
    c.out.push_back(fmt::format(
        "The libcuda the loader picks, {}, is the regular driver library, not cuda-compat.", *picked));
  }
}

void check_container(const Context& c) {
  auto kind = rules::container_kind(c.report);
  if (!kind) {
    c.out.push_back(
        "No container detected here (a host or a VM); for a message from inside a container, run cudiag "
        "there "
        "too.");
    return;
  }
  auto runtime = rules::bool_at(c.report, "host.container.nvidia_runtime");
  c.out.push_back(fmt::format(
      "This is a {} container{}.", *kind,
      runtime ? (*runtime ? " with the NVIDIA runtime's mounts" : " without the NVIDIA runtime's mounts")
              : ""));
}

void check_environment(const Context& c) {
  if (!rules::env_collected(c.report)) return;
  // Stated facts alone (--assume, a pasted issue: "collected": false) know the variables they name,
  // not that the others are unset.
  const Json* collected =
      c.report.is_object() && c.report.contains("collected") ? &c.report["collected"] : nullptr;
  bool read_here = !(collected && collected->is_boolean() && !collected->get<bool>());
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH"}) {
    auto v = rules::env(c.report, name);
    if (v) {
      c.out.push_back(fmt::format("{}={}", name, *v));
    } else if (read_here) {
      c.out.push_back(fmt::format("{} is not set here.", name));
    }
  }
}

// Every object in the report with a "path" (and maybe "real_path"): the libraries cudiag found.
void collect_paths(const Json& j, std::vector<const Json*>& out) {
  if (j.is_object()) {
    if (j.contains("path") && j["path"].is_string() && j.contains("found_via")) out.push_back(&j);
    for (const auto& [k, v] : j.items()) collect_paths(v, out);
  } else if (j.is_array()) {
    for (const auto& v : j) collect_paths(v, out);
  }
}

void check_library(const Context& c) {
  std::vector<const Json*> found;
  collect_paths(c.report, found);
  for (const auto& soname : values_of_kind(c, CaptureKind::kSoname)) {
    auto so = soname.find(".so");
    std::string stem = so == std::string::npos ? soname : soname.substr(0, so);
    std::vector<std::string> exact, others;
    for (const auto* f : found) {
      std::string path = (*f)["path"].get<std::string>();
      std::string name = file_name(path);
      std::string real = file_name(f->value("real_path", path));
      if (name == soname || real == soname) {
        exact.push_back(fmt::format("{} (found via {})", path,
                                    join((*f)["found_via"].get<std::vector<std::string>>(), ", ")));
      } else if (name.rfind(stem + ".so", 0) == 0 &&
                 std::find(others.begin(), others.end(), name) == others.end()) {
        others.push_back(name);
      }
    }
    if (!exact.empty()) {
      c.out.push_back(fmt::format("{} is on this machine: {}.", soname, join(exact, "; ")));
    } else {
      c.out.push_back(fmt::format("{} is not among the libraries cudiag found on this machine.", soname));
    }
    if (!others.empty())
      c.out.push_back(fmt::format("Other versions of {} here: {}.", stem, join(others, ", ")));
  }
}

void check_named_library(const Context& c, const std::string& key) {
  const Json& lib = model::fact_at(c.report, "libraries." + key);
  std::string name = lib.is_object() ? lib.value("name", key) : key;
  if (!lib.is_object() || !lib.contains("instances") || lib["instances"].empty()) {
    c.out.push_back(fmt::format("cudiag found no {} on this machine.", name));
    return;
  }
  for (const auto& inst : lib["instances"]) {
    std::string path = inst.value("path", "");
    const Json& v = field_value(inst, "version");
    c.out.push_back(
        fmt::format("{} {} at {}", name, v.is_string() ? v.get<std::string>() : "(version unknown)", path));
  }
}

void check_driver_lib(const Context& c) {
  auto picked = string_at(c.report, "driver_api.picked");
  if (!picked) {
    c.out.push_back("The report shows no libcuda the loader would pick.");
    return;
  }
  bool stub = picked->find("/stubs/") != std::string::npos;
  c.out.push_back(fmt::format("The loader picks {}{}.", *picked,
                              stub ? ", the toolkit's stub" : ", a real driver library"));
}

using Check = std::function<void(const Context&)>;

const std::map<std::string, Check>& machine_checks() {
  static const std::map<std::string, Check> checks = {
      {"driver", check_driver},
      {"runtimes", check_runtimes},
      {"runtime_gap", check_runtime_gap},
      {"legacy_gpu", check_legacy_gpu},
      {"compute_type", check_compute_type},
      {"gpus", check_gpus},
      {"build_for_gpu", check_build_for_gpu},
      {"torch_build", check_torch_build},
      {"toolkit_for_gpu", check_toolkit_for_gpu},
      {"soname_cuda", check_soname_cuda},
      {"nvcc_arch", check_nvcc_arch},
      {"extension_cuda", check_extension_cuda},
      {"torch_variant", check_torch_variant},
      {"toolkit_identifier", check_toolkit_identifier},
      {"devices", check_devices},
      {"kernel_vs_user", check_kernel_vs_user},
      {"forward_compat", check_forward_compat},
      {"container", check_container},
      {"environment", check_environment},
      {"library", check_library},
      {"driver_lib", check_driver_lib},
  };
  return checks;
}

// Runs the machine checks of each explanation's signature that `wanted` accepts.
void run_checks(std::vector<Explanation>& explanations, const Json& report, const kb::KnowledgeBase& kb,
                const std::function<bool(const std::string&)>& wanted) {
  const auto& sigs = signatures(kb);
  for (auto& e : explanations) {
    auto matched =
        std::find_if(sigs.begin(), sigs.end(), [&](const Signature& s) { return s.id == e.matched_by; });
    auto explaining =
        std::find_if(sigs.begin(), sigs.end(), [&](const Signature& s) { return s.id == e.id; });
    if (matched == sigs.end() || explaining == sigs.end()) continue;
    Context c{report, kb, *matched, e, e.machine, e.machine_fix, e.machine_layer};
    for (const auto& m : explaining->machine) {
      if (!wanted(m)) continue;
      if (m.rfind("library:", 0) == 0) {
        check_named_library(c, m.substr(8));
      } else if (auto it = machine_checks().find(m); it != machine_checks().end()) {
        it->second(c);
      }
    }
  }
}

}  // namespace

const std::vector<std::string>& machine_check_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, check] : machine_checks()) out.push_back(name);
    return out;
  }();
  return names;
}

void add_machine_lines(std::vector<Explanation>& explanations, const Json& report,
                       const kb::KnowledgeBase& kb) {
  run_checks(explanations, report, kb, [](const std::string&) { return true; });
}

void add_message_fixes(std::vector<Explanation>& explanations, const kb::KnowledgeBase& kb) {
  static const Json nothing_known = Json::object();
  run_checks(explanations, nothing_known, kb, [](const std::string& m) {
    return m == "nvcc_arch" || m == "extension_cuda" || m == "torch_variant" || m == "toolkit_identifier";
  });
}

}  // namespace cudiag::explain
