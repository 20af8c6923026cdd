#include "inspect/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "inspect/arch_compat.h"

namespace cudiag::inspect {

namespace {

// Natural order for arch names: by number, then variant ("sm_90" < "sm_90a" < "sm_100").
struct ArchOrder {
  bool operator()(const GpuArch& a, const GpuArch& b) const {
    if (a.number() != b.number()) return a.number() < b.number();
    return a.variant < b.variant;
  }
};

int rank(VerdictKind k) {
  switch (k) {
    case VerdictKind::kCannotRun:
      return 3;
    case VerdictKind::kJit:
      return 2;
    case VerdictKind::kNative:
      return 1;
    case VerdictKind::kNoDeviceCode:
      break;
  }
  return 0;
}

}  // namespace

Verdict verdict(std::span<const FatbinEntry> entries, const GpuArch& device,
                std::optional<PtxIsa> driver_max_ptx_isa) {
  Verdict v;
  std::set<GpuArch, ArchOrder> sass, ptx;
  const FatbinEntry* best_sass = nullptr;
  const FatbinEntry* best_ptx = nullptr;     // newest compatible PTX the driver accepts
  const FatbinEntry* too_new_ptx = nullptr;  // compatible PTX the driver is too old for
  for (const auto& e : entries) {
    if (e.kind == EntryKind::kSass) {
      sass.insert(e.arch);
      // The driver prefers the closest (highest compatible) SASS.
      if (sass_runs_on(e.arch, device) && (!best_sass || ArchOrder{}(best_sass->arch, e.arch)))
        best_sass = &e;
    } else if (e.kind == EntryKind::kPtx) {
      ptx.insert(e.arch);
      if (!ptx_jits_for(e.arch, device)) continue;
      auto isa = e.ptx_isa();
      bool accepted = !driver_max_ptx_isa || !isa || *isa <= *driver_max_ptx_isa;
      const FatbinEntry*& slot = accepted ? best_ptx : too_new_ptx;
      if (!slot || ArchOrder{}(slot->arch, e.arch)) slot = &e;
    }
  }
  if (sass.empty() && ptx.empty()) {
    v.kind = VerdictKind::kNoDeviceCode;
    v.reason = "no SASS or PTX (only LTO IR or unknown entries, which the driver cannot load)";
    if (entries.empty()) v.reason = "no CUDA device code";
    return v;
  }
  if (best_sass) {
    v.kind = VerdictKind::kNative;
    v.image = sm_name(best_sass->arch);
    v.reason =
        fmt::format("SASS {} runs natively on {}", v.image, sm_name(GpuArch{device.major, device.minor}));
    return v;
  }
  // Names in arch order (sm_75 before sm_100), not string order.
  std::string sass_names, ptx_names;
  for (const auto& a : sass) sass_names += (sass_names.empty() ? "" : " ") + sm_name(a);
  for (const auto& a : ptx) ptx_names += (ptx_names.empty() ? "" : " ") + compute_name(a);
  std::string dev = sm_name(GpuArch{device.major, device.minor});
  std::string no_sass = sass.empty() ? fmt::format("no SASS for {} (none at all)", dev)
                                     : fmt::format("no SASS for {} (only {})", dev, sass_names);
  if (best_ptx) {
    auto isa = best_ptx->ptx_isa();
    v.kind = VerdictKind::kJit;
    v.image = fmt::format("{} (PTX ISA {})", compute_name(best_ptx->arch), isa ? isa->text() : "unknown");
    // JIT happens once per kernel at first launch and is cached by the driver
    // (~/.nv/ComputeCache), so the cost is start-up time, not throughput.
    v.reason =
        fmt::format("{}; the driver JIT-compiles PTX {} at first launch, which delays start-up{}", no_sass,
                    v.image, driver_max_ptx_isa ? "" : "; needs a driver that supports that PTX ISA");
    return v;
  }
  v.kind = VerdictKind::kCannotRun;
  if (too_new_ptx) {
    v.reason = fmt::format(
        "{}, and PTX {} needs PTX ISA {} but the driver supports only up to {} "
        "(\"the provided PTX was compiled with an unsupported toolchain\"); update the driver",
        no_sass, compute_name(too_new_ptx->arch), too_new_ptx->ptx_isa()->text(), driver_max_ptx_isa->text());
    return v;
  }
  std::string ptx_part = ptx.empty()
                             ? "no PTX to JIT-compile"
                             : fmt::format("PTX only for {} (cannot be JIT-compiled for {})", ptx_names, dev);
  v.reason = fmt::format("{} and {} (\"no kernel image is available for execution on the device\")", no_sass,
                         ptx_part);
  return v;
}

Verdict file_verdict(const InspectResult& result, const GpuArch& device,
                     std::optional<PtxIsa> driver_max_ptx_isa) {
  if (result.entries.empty()) return verdict({}, device, driver_max_ptx_isa);
  // Which blobs are loadable modules.
  bool has_linked = false, has_rel = false;
  for (const auto& b : result.blobs) {
    if (b.section == "__nv_relfatbin")
      has_rel = true;
    else
      has_linked = true;
  }
  std::map<std::size_t, std::vector<FatbinEntry>> modules;
  for (const auto& e : result.entries) {
    const FatbinBlob& b = result.blobs[e.blob];
    if (has_linked && b.section == "__nv_relfatbin") continue;
    modules[e.blob].push_back(e);
  }
  // The device-link blob of a whole-program build repeats the SASS arch list
  // without kernels; with -rdc (relocatable code present) it is the program.
  if (!has_rel && modules.size() > 1) {
    std::erase_if(modules, [&](const auto& m) { return result.blobs[m.first].device_link; });
  }
  Verdict worst;
  bool first = true;
  std::size_t bad = 0;
  for (const auto& [blob, entries] : modules) {
    Verdict v = verdict(entries, device, driver_max_ptx_isa);
    if (v.kind == VerdictKind::kNoDeviceCode) continue;
    if (v.kind == VerdictKind::kCannotRun) ++bad;
    if (first || rank(v.kind) > rank(worst.kind)) worst = v;
    first = false;
  }
  if (first) return verdict({}, device, driver_max_ptx_isa);
  if (bad > 0 && modules.size() > 1)
    worst.reason = fmt::format("{} of {} CUDA modules cannot run: {}", bad, modules.size(), worst.reason);
  return worst;
}

std::string verdict_kind_name(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::kNative:
      return "native";
    case VerdictKind::kJit:
      return "jit";
    case VerdictKind::kCannotRun:
      return "cannot_run";
    case VerdictKind::kNoDeviceCode:
      break;
  }
  return "no_device_code";
}

}  // namespace cudiag::inspect
