// binary_arch: can the CUDA libraries on this machine run kernels on its GPUs?
// For each library instance in the report's `binaries` key (fatbin
// architectures per file, probes/binaries_probe.cpp; cudiag report --binaries
// or check --deep) and each GPU (seen or --assume'd), the inspector's verdict
// (inspect/verdict.h: the binary-compatibility rules for SASS, the JIT rules
// for PTX and the driver's PTX ISA) over every architecture the instance's
// files carry:
//   libraries.binary_arch_jit         no SASS for the GPU, PTX the driver can JIT (start-up cost)
//   libraries.binary_arch_missing     no SASS and no PTX that can be JIT-compiled for it
//   libraries.binary_arch_ptx_too_new only PTX newer than the driver's JIT accepts
// The findings name the missing architecture and the builds that have it:
// other copies of the library on the machine that carry it, and the CUDA
// release that first (or last) targets it, from the knowledge base.
//
// The verdict is per instance, over all of its modules together: NVIDIA's
// libraries ship arch-specific modules (sm_90a-only kernels, sm_75-only
// kernels) beside the general ones, so "every module must have code for the
// GPU" would condemn every library on every GPU. What matters is whether the
// build targets the GPU at all.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "inspect/arch_compat.h"
#include "inspect/verdict.h"
#include "kb/knowledge_base.h"
#include "rules/arch_targets.h"
#include "rules/engine.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"

namespace cudiag::rules {
namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {.id = "libraries.binary_arch_missing",
     .layer = "libraries",
     .severity = "error (independent when the GPU is newer than the build) / warning",
     .when =
         R"(a library instance carries no SASS that runs on a GPU and no PTX that can be JIT-compiled for it ("no kernel image is available for execution on the device"); names the missing `sm_XX`, other copies on the machine that carry it, and the CUDA release that first (GPU newer than the build) or last (GPU older than every target) builds for it)",
     .covered_by = "scenario nccl-built-without-sm100-on-b200",
     .message =
         "{who} {has} no kernels for {gpu}: {why}; {its} calls fail with \"no kernel image is available for execution on the device\".{not_in_use}",
     .remediation = "{remedy}"},
    {.id = "libraries.binary_arch_ptx_too_new",
     .layer = "libraries",
     .severity = "error / warning",
     .when =
         R"(no SASS for the GPU, and the PTX that could be JIT-compiled needs a newer PTX ISA than the driver's JIT ("the provided PTX was compiled with an unsupported toolchain"); names the driver branch that accepts it)",
     .covered_by = "scenario library-ptx-newer-than-driver-under-mvc",
     .message =
         "{who} {has} no SASS for {gpu}, and {its} PTX needs PTX ISA {isa} while driver {driver} JIT-compiles up to {max_isa}; {its} calls fail with \"the provided PTX was compiled with an unsupported toolchain\".{not_in_use}",
     .remediation =
         "Install a driver that JIT-compiles PTX ISA {isa}{driver_hint}, or use builds with SASS for {sm}.{alternatives}"},
    {.id = "libraries.binary_arch_jit",
     .layer = "libraries",
     .severity = "warning / info",
     .when = "no SASS for the GPU, but PTX the driver can JIT-compile: it runs after a JIT at each process's "
             "first launch (seconds to minutes; cached in ~/.nv/ComputeCache)",
     .covered_by = "scenario nccl-cuda12-default-gencode-jit-on-rtx5090",
     .message =
         "{who_has} no SASS for {gpu}; the driver JIT-compiles {ptx} at the first launch of each process, which takes seconds to minutes until ~/.nv/ComputeCache holds the result.{not_in_use}",
     .remediation =
         "Use builds with SASS for {sm}.{alternatives}{release} Meanwhile keep the JIT cache: CUDA_CACHE_MAXSIZE large enough and ~/.nv writable."},
};

constexpr const char* kBinaryCompat =
    "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#binary-compatibility";

// Natural order: sm_75 < sm_90 < sm_90a < sm_100.
bool arch_before(const inspect::GpuArch& a, const inspect::GpuArch& b) {
  if (a.number() != b.number()) return a.number() < b.number();
  return a.variant < b.variant;
}

// One library instance with the device code of all its files.
struct Build {
  std::string fact;     // "binaries.libraries[2]"
  std::string library;  // the libraries layer's key: "nccl"
  std::string name;     // "NCCL"
  std::string label;    // "NCCL 2.21.5 (/opt/nccl/lib/libnccl.so.2)"
  std::string path;
  std::string real_path;
  std::string listing;  // "SASS sm_70 sm_80 sm_90 · PTX compute_90 (ISA 8.4)"
  std::string source;   // "fatbin headers of /opt/nccl/lib/libnccl.so.2"
  std::vector<inspect::FatbinEntry> entries;
  bool in_use = true;
};

std::string listing_of(std::vector<inspect::FatbinEntry> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return arch_before(a.arch, b.arch); });
  std::string sass, ptx;
  for (const auto& e : entries) {
    if (e.kind == inspect::EntryKind::kSass) {
      sass += " " + inspect::sm_name(e.arch);
    } else if (e.kind == inspect::EntryKind::kPtx) {
      auto isa = e.ptx_isa();
      ptx += " " + inspect::compute_name(e.arch) + (isa ? fmt::format(" (ISA {})", isa->text()) : "");
    }
  }
  return fmt::format("{} · {}", sass.empty() ? "no SASS" : "SASS" + sass,
                     ptx.empty() ? "no PTX" : "PTX" + ptx);
}

// Paths the frameworks layer says a framework loads.
std::set<std::string> framework_loads(const Json& report) {
  std::set<std::string> out;
  const Json& envs = value_at(report, "frameworks.environments");
  if (!envs.is_array()) return out;
  for (const auto& env : envs) {
    if (!env.is_object() || !env.contains("frameworks") || !env["frameworks"].is_array()) continue;
    for (const auto& fw : env["frameworks"]) {
      if (!fw.is_object() || !fw.contains("loads") || !fw["loads"].is_array()) continue;
      for (const auto& l : fw["loads"])
        if (l.is_object() && l.contains("path") && l["path"].is_string())
          out.insert(l["path"].get<std::string>());
    }
  }
  return out;
}

std::vector<Build> builds_in(const Json& report) {
  std::vector<Build> out;
  const Json& libs = value_at(report, "binaries.libraries");
  if (!libs.is_array()) return out;
  auto loads = framework_loads(report);
  for (std::size_t i = 0; i < libs.size(); ++i) {
    const Json& l = libs[i];
    if (!l.is_object() || !l.contains("files") || !l["files"].is_array()) continue;
    Build b;
    b.fact = fmt::format("binaries.libraries[{}]", i);
    b.library = l.value("library", "");
    b.path = l.value("path", "");
    b.real_path = l.value("real_path", b.path);
    std::string version =
        l.contains("version") && l["version"].is_string() ? l["version"].get<std::string>() : "";
    b.name = l.value("name", b.library);
    b.label = fmt::format("{}{}{} ({})", b.name, version.empty() ? "" : " ", version, b.path);
    std::set<std::string> seen;  // one entry per arch (and PTX ISA) across the files
    for (const auto& f : l["files"]) {
      if (!f.is_object() || !f.contains("architectures")) continue;
      std::vector<inspect::FatbinEntry> entries;
      std::string names;
      append_arch_entries(f["architectures"], entries, names);
      for (const auto& e : entries) {
        auto isa = e.ptx_isa();
        auto key = fmt::format("{} {} {}", static_cast<int>(e.kind), inspect::sm_name(e.arch),
                               isa ? isa->text() : "");
        if (seen.insert(key).second) b.entries.push_back(e);
      }
    }
    if (b.entries.empty()) continue;
    b.listing = listing_of(b.entries);
    std::size_t files = l["files"].size();
    b.source = files > 1 ? fmt::format("fatbin headers of {} and {} more file{} beside it", b.path, files - 1,
                                       files == 2 ? "" : "s")
                         : "fatbin headers of " + b.path;
    // A copy nothing loads by default (not the loader's pick, no framework
    // loads it) only breaks programs that point at it (RPATH, LD_LIBRARY_PATH).
    if (l.contains("loader_pick") && l["loader_pick"].is_boolean() && !l["loader_pick"].get<bool>())
      b.in_use = loads.count(b.path) || loads.count(b.real_path);
    out.push_back(std::move(b));
  }
  return out;
}

// The copies of the same library that can run on `dev`, as "PATH (VERSION)" phrases.
std::vector<const Build*> alternatives(const std::vector<Build>& builds, const Build& b,
                                       const inspect::GpuArch& dev, std::optional<inspect::PtxIsa> max_isa) {
  std::vector<const Build*> out;
  for (const auto& o : builds) {
    if (&o == &b || o.library != b.library) continue;
    auto v = inspect::verdict(o.entries, dev, max_isa);
    if (v.kind == inspect::VerdictKind::kNative) out.push_back(&o);
  }
  return out;
}

// "For NCCL, this machine's copy /usr/lib/libnccl.so.2 (NCCL 2.26.2) has SASS for sm_100: ..."
std::string alternatives_text(const Build& b, const std::vector<const Build*>& alts, const std::string& sm) {
  if (alts.empty()) return "";
  std::string list;
  for (const auto* a : alts) list += (list.empty() ? "" : "; ") + a->label;
  return fmt::format(
      " For {}, this machine's {} {} {} SASS for {}: make the loader pick {} (LD_LIBRARY_PATH, or "
      "the program's RPATH).",
      b.name, alts.size() == 1 ? "copy" : "copies", list, alts.size() == 1 ? "has" : "have", sm,
      alts.size() == 1 ? "it" : "one");
}

// What the knowledge base says about the CUDA releases that build for the GPU.
std::string release_text(const kb::Arch* arch, bool older_than_build) {
  if (!arch) return "";
  std::string who = fmt::format("{} ({})", arch->sm, arch->name);
  if (older_than_build) {
    if (!arch->last_cuda) return "";
    return fmt::format(" {} was last targeted by CUDA {}: use builds made with CUDA {} or earlier.", who,
                       arch->last_cuda->text(), arch->last_cuda->text());
  }
  auto first = arch->first_cuda ? arch->first_cuda : arch->first_cuda_at_most;
  if (!first) return "";
  return fmt::format(" {} needs a build made with CUDA {} or later that lists it among its targets.", who,
                     first->text());
}

// One library on one GPU that does not run natively.
struct Case {
  const Build* build;
  inspect::Verdict verdict;
  std::string id;
  Severity severity;
  bool older = false;                          // the GPU is older than every target of the build
  std::optional<inspect::PtxIsa> too_new_isa;  // PTX that would JIT but needs a newer driver
  std::vector<const Build*> alternatives;      // copies of the same library that run natively
};

std::string join_labels(const std::vector<Case>& cases, bool with_image) {
  std::string out;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (i) out += i + 1 == cases.size() ? " and " : ", ";
    out += cases[i].build->label;
    if (with_image && !cases[i].verdict.image.empty()) out += " with PTX " + cases[i].verdict.image;
  }
  return out;
}

// The findings for one GPU and one outcome (same id, severity and direction).
Finding finding_for(const std::vector<Case>& cases, const GpuView& g, const kb::Arch* arch,
                    const HostDriver& driver, std::optional<inspect::PtxIsa> max_isa, const Json& report,
                    const kb::KnowledgeBase& kb) {
  const Case& c0 = cases.front();
  auto dev = device_arch(*g.cc);
  std::string sm = inspect::sm_name(dev);
  std::string gpu = fmt::format("{} ({})", g.label, sm);
  bool one = cases.size() == 1;
  std::string who = one ? join_labels(cases, false)
                        : fmt::format("{} libraries — {} —", cases.size(), join_labels(cases, false));
  std::string alts;
  for (const auto& c : cases) alts += alternatives_text(*c.build, c.alternatives, sm);
  bool in_use = c0.build->in_use;  // the same for the whole group: severity follows from it
  std::string not_in_use =
      in_use ? ""
             : fmt::format(" {} not the copy the loader picks, so only programs pointed at {} are affected.",
                           one ? "This is" : "These are", one ? "it" : "them");
  Finding f;
  if (c0.id == "libraries.binary_arch_jit") {
    // Each library with the PTX the driver would pick.
    std::string jit_who =
        one ? fmt::format("{} has", who)
            : fmt::format("{} libraries — {} — have", cases.size(), join_labels(cases, true));
    f = finding("libraries.binary_arch_jit", c0.severity,
                {{"who_has", jit_who},
                 {"gpu", gpu},
                 {"ptx", one ? "its PTX " + c0.verdict.image : std::string("that PTX")},
                 {"not_in_use", not_in_use},
                 {"sm", sm},
                 {"alternatives", alts},
                 {"release", release_text(arch, false)}});
    if (max_isa) add_driver_evidence(f, report, driver);
  } else if (c0.id == "libraries.binary_arch_ptx_too_new") {
    inspect::PtxIsa need{};
    for (const auto& c : cases) need = std::max(need, *c.too_new_isa);
    auto isa_version = Version::parse(need.text());
    auto cuda = isa_version ? kb.cuda_for_ptx_isa(*isa_version) : std::nullopt;
    auto branch = cuda ? first_branch_for_cuda(kb, *cuda) : std::nullopt;
    f = finding(
        "libraries.binary_arch_ptx_too_new", c0.severity,
        {{"who", who},
         {"has", one ? "has" : "have"},
         {"gpu", gpu},
         {"its", one ? "its" : "their"},
         {"isa", need.text()},
         {"driver", describe(driver)},
         {"max_isa", max_isa->text()},
         {"not_in_use", not_in_use},
         {"driver_hint", branch ? fmt::format(" (branch R{} or newer, CUDA {})", *branch, cuda->text())
                                : (cuda ? fmt::format(" (CUDA {} or newer)", cuda->text()) : "")},
         {"sm", sm},
         {"alternatives", alts}});
    add_driver_evidence(f, report, driver);
    add_doc(f, "https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#release-notes",
            "PTX ISA release history");
  } else {
    // "Older": every target is newer than the GPU, the way a toolkit drops
    // an architecture; the cuda_runtime rules say the same of the runtime,
    // so these follow from an earlier failure. A GPU newer than the build
    // stands on its own.
    std::string why = c0.older ? fmt::format("every architecture {} carries is newer", one ? "it" : "each")
                               : fmt::format("no SASS for {} and no PTX that can be JIT-compiled for it", sm);
    f = finding(
        "libraries.binary_arch_missing", c0.severity,
        {{"who", who},
         {"has", one ? "has" : "have"},
         {"gpu", gpu},
         {"why", why},
         {"its", one ? "its" : "their"},
         {"not_in_use", not_in_use},
         {"remedy",
          c0.older ? fmt::format("Use builds that still target {}.{}{}", sm, alts, release_text(arch, true))
                   : fmt::format("Use builds with SASS for {} (or PTX for {} or lower).{}{}", sm,
                                 inspect::compute_name(dev), alts, release_text(arch, false))}});
    f.independent = !c0.older;
  }
  for (const auto& c : cases) {
    f.evidence.push_back(evidence(c.build->fact + ".files", c.build->listing, c.build->source));
    for (const auto* a : c.alternatives)
      f.evidence.push_back(evidence(a->fact + ".files", a->listing, a->source));
  }
  f.evidence.push_back(evidence(g.fact, gpu, g.source));
  add_doc(f, kBinaryCompat, "Binary Compatibility; Application Compatibility");
  if (arch) add_docs(f, *arch);
  return f;
}

void binary_arch(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  auto builds = builds_in(report);
  if (builds.empty()) return;
  // One finding per architecture, not per GPU: eight H100s are one question.
  std::vector<GpuView> devices;
  std::set<std::string> ccs;
  for (const auto& g : gpus(report, kb))
    if (g.cc && ccs.insert(g.cc->text()).second) devices.push_back(g);
  auto driver = host_driver(report, kb);
  auto max_isa = driver_max_ptx_isa(driver, kb);
  for (const auto& g : devices) {
    auto dev = device_arch(*g.cc);
    const kb::Arch* arch = g.arch ? g.arch : kb.arch_for_cc(*g.cc);
    // Grouped by finding id, severity and direction, in the order first seen.
    std::vector<std::vector<Case>> groups;
    for (const auto& b : builds) {
      Case c{&b, inspect::verdict(b.entries, dev, max_isa), "", Severity::kInfo, false, std::nullopt, {}};
      if (c.verdict.kind == inspect::VerdictKind::kNative ||
          c.verdict.kind == inspect::VerdictKind::kNoDeviceCode)
        continue;
      c.alternatives = alternatives(builds, b, dev, max_isa);
      if (c.verdict.kind == inspect::VerdictKind::kJit) {
        c.id = "libraries.binary_arch_jit";
        c.severity = b.in_use ? Severity::kWarning : Severity::kInfo;
      } else {
        for (const auto& e : b.entries) {
          if (e.kind != inspect::EntryKind::kPtx || !inspect::ptx_jits_for(e.arch, dev)) continue;
          auto isa = e.ptx_isa();
          if (isa && max_isa && *isa > *max_isa && (!c.too_new_isa || *isa < *c.too_new_isa))
            c.too_new_isa = isa;
        }
        c.id = c.too_new_isa ? "libraries.binary_arch_ptx_too_new" : "libraries.binary_arch_missing";
        c.severity = b.in_use ? Severity::kError : Severity::kWarning;
        c.older = std::all_of(b.entries.begin(), b.entries.end(),
                              [&](const inspect::FatbinEntry& e) { return inspect::cc_less(dev, e.arch); });
      }
      auto same = [&](const std::vector<Case>& grp) {
        return grp.front().id == c.id && grp.front().severity == c.severity && grp.front().older == c.older;
      };
      auto it = std::find_if(groups.begin(), groups.end(), same);
      if (it == groups.end())
        groups.push_back({std::move(c)});
      else
        it->push_back(std::move(c));
    }
    for (const auto& grp : groups) out.push_back(finding_for(grp, g, arch, driver, max_isa, report, kb));
  }
}

const RegisterRule kBinaryArch{{"libraries.binary_arch", binary_arch}};

}  // namespace
}  // namespace cudiag::rules
