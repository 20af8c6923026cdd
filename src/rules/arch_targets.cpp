#include "rules/arch_targets.h"

namespace cudiag::rules {

std::optional<inspect::FatbinEntry> arch_entry(const std::string& name,
                                               const std::optional<std::string>& ptx_isa) {
  auto arch = inspect::parse_gpu_arch(name);
  if (!arch) return std::nullopt;
  inspect::FatbinEntry e;
  e.arch = *arch;
  e.kind = name.starts_with("compute_") ? inspect::EntryKind::kPtx : inspect::EntryKind::kSass;
  if (ptx_isa) {
    if (auto p = inspect::parse_ptx_isa(*ptx_isa)) {
      e.version_major = static_cast<std::uint16_t>(p->major);
      e.version_minor = static_cast<std::uint16_t>(p->minor);
    }
  }
  return e;
}

void append_arch_entries(const Json& architectures, std::vector<inspect::FatbinEntry>& entries,
                         std::string& listing) {
  if (!architectures.is_object()) return;
  auto add = [&](const std::string& name, const std::optional<std::string>& isa) {
    auto e = arch_entry(name, isa);
    if (!e) return;
    entries.push_back(*e);
    listing += (listing.empty() ? "" : " ") + name;
  };
  for (const auto& s : architectures.value("sass", Json::array()))
    if (s.is_string()) add(s.get<std::string>(), std::nullopt);
  for (const auto& p : architectures.value("ptx", Json::array())) {
    if (!p.is_object()) continue;
    add(p.value("arch", ""), p.contains("ptx_isa") && p["ptx_isa"].is_string()
                                 ? std::optional(p["ptx_isa"].get<std::string>())
                                 : std::nullopt);
  }
}

std::optional<inspect::PtxIsa> driver_max_ptx_isa(const HostDriver& driver, const kb::KnowledgeBase& kb) {
  if (!driver.cuda) return std::nullopt;
  auto isa = kb.ptx_isa_for_cuda(*driver.cuda);
  if (!isa) return std::nullopt;
  return inspect::PtxIsa{static_cast<int>(isa->major()), static_cast<int>(isa->minor())};
}

inspect::GpuArch device_arch(const Version& cc) {
  return inspect::GpuArch{static_cast<int>(cc.major()), static_cast<int>(cc.minor())};
}

}  // namespace cudiag::rules
