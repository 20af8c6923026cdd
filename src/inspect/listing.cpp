#include "inspect/listing.h"

#include <map>
#include <set>

#include <fmt/format.h>

namespace cudiag::inspect {

namespace {

struct ArchOrder {
  bool operator()(const GpuArch& a, const GpuArch& b) const {
    if (a.number() != b.number()) return a.number() < b.number();
    return a.variant < b.variant;
  }
};

std::string base_name(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// cuobjdump's label: 'a' shown for ELF and PTX, 'f' only for PTX (an
// sm_100f cubin is listed as sm_100; observed with cuobjdump 13.x).
std::string cuobjdump_arch(const FatbinEntry& e) {
  std::string suffix;
  if (e.arch.variant == ArchVariant::kA) suffix = "a";
  if (e.arch.variant == ArchVariant::kF && e.kind == EntryKind::kPtx) suffix = "f";
  return fmt::format("sm_{}{}", e.arch.number(), suffix);
}

}  // namespace

std::string summary_line(const InspectResult& r) {
  if (r.entries.empty()) return "no CUDA device code";
  std::set<GpuArch, ArchOrder> sass;
  std::map<GpuArch, std::set<PtxIsa>, ArchOrder> ptx;
  std::set<GpuArch, ArchOrder> lto;
  std::size_t unknown = 0;
  std::set<std::string> compressions;
  for (const auto& e : r.entries) {
    compressions.insert(compression_name(e.compression));
    switch (e.kind) {
      case EntryKind::kSass: sass.insert(e.arch); break;
      case EntryKind::kPtx: {
        auto& isas = ptx[e.arch];
        if (auto isa = e.ptx_isa()) isas.insert(*isa);
        break;
      }
      case EntryKind::kLtoIr: lto.insert(e.arch); break;
      case EntryKind::kUnknown: ++unknown; break;
    }
  }
  std::vector<std::string> parts;
  if (!sass.empty()) {
    std::string s = "SASS";
    for (const auto& a : sass) s += " " + sm_name(a);
    parts.push_back(s);
  }
  if (!ptx.empty()) {
    std::string s = "PTX";
    for (const auto& [a, isas] : ptx) {
      s += " " + compute_name(a);
      if (!isas.empty()) {
        std::string list;
        for (const auto& i : isas) list += (list.empty() ? "" : ", ") + i.text();
        s += fmt::format(" (ISA {})", list);
      }
    }
    parts.push_back(s);
  }
  if (!lto.empty()) {
    std::string s = "LTO-IR";
    for (const auto& a : lto) s += fmt::format(" lto_{}{}", a.number(), variant_suffix(a.variant));
    parts.push_back(s);
  }
  if (unknown) parts.push_back(fmt::format("{} unknown", unknown));
  std::string comp;
  for (const auto& c : compressions) comp += (comp.empty() ? "" : "+") + c;
  parts.push_back(fmt::format("{} {}, {}", r.entries.size(), r.entries.size() == 1 ? "entry" : "entries",
                              comp == "none" ? "uncompressed" : comp));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " · ") + p;
  return out;
}

Json to_json(const InspectResult& r) {
  Json j;
  j["path"] = r.path;
  j["type"] = file_type_name(r);
  j["size"] = r.file_size;
  j["summary"] = summary_line(r);
  if (!r.soname.empty()) j["soname"] = r.soname;
  j["needed"] = r.needed;
  j["rpath"] = r.rpath;
  j["runpath"] = r.runpath;
  Json blobs = Json::array();
  for (const auto& b : r.blobs) {
    Json jb{{"section", b.section}, {"offset", b.offset}, {"size", b.size}, {"entries", b.entry_count},
            {"device_link", b.device_link}};
    if (!b.member.empty()) jb["member"] = b.member;
    blobs.push_back(std::move(jb));
  }
  j["modules"] = std::move(blobs);
  Json entries = Json::array();
  for (const auto& e : r.entries) {
    Json je;
    je["kind"] = kind_name(e.kind);
    je["arch"] = entry_arch_name(e);
    je["variant"] = variant_suffix(e.arch.variant);
    if (auto isa = e.ptx_isa()) je["ptx_isa"] = isa->text();
    je["compression"] = compression_name(e.compression);
    je["offset"] = e.offset;
    je["payload_size"] = e.payload_size;
    je["compressed_size"] = e.compressed_size;
    je["uncompressed_size"] = e.content_size();
    je["flags"] = fmt::format("{:#x}", e.flags);
    je["module"] = e.blob;
    if (e.kind == EntryKind::kUnknown) je["raw_kind"] = e.raw_kind;
    if (!e.identifier.empty()) je["identifier"] = e.identifier;
    if (e.cubin) {
      je["cubin"] = {{"abi_version", e.cubin->abi_version},
                     {"os_abi", e.cubin->os_abi},
                     {"elf_type", e.cubin->elf_type == 1 ? "relocatable" : e.cubin->elf_type == 2 ? "executable" : "other"},
                     {"e_flags", fmt::format("{:#x}", e.cubin->e_flags)},
                     {"sm", e.cubin->sm}};
    }
    if (e.ptx_text_version || !e.ptx_text_target.empty()) {
      je["ptx_text"] = {{"version", e.ptx_text_version ? e.ptx_text_version->text() : ""},
                        {"target", e.ptx_text_target}};
    }
    entries.push_back(std::move(je));
  }
  j["entries"] = std::move(entries);
  if (!r.warnings.empty()) j["warnings"] = r.warnings;
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

std::string cuobjdump_listing(const InspectResult& r, const std::string& display_path, const std::string& member_path) {
  std::string name = base_name(display_path);
  if (auto dot = name.find_last_of('.'); dot != std::string::npos && dot != 0) name = name.substr(0, dot);
  std::string out;
  int elf_no = 0, ptx_no = 0;
  // One group per archive member (a single group, "", outside archives).
  std::vector<std::string> members = r.members;
  if (r.type != FileType::kArchive) members = {""};
  for (const auto& member : members) {
    bool has_linked = false;
    for (const auto& b : r.blobs)
      if (b.member == member && !b.embedded && b.section != "__nv_relfatbin") has_linked = true;
    std::string lines;
    for (const auto& e : r.entries) {
      const FatbinBlob& b = r.blobs[e.blob];
      if (b.member != member || b.embedded || (has_linked && b.section == "__nv_relfatbin")) continue;
      if (e.kind == EntryKind::kSass) {
        ++elf_no;
        lines += fmt::format("ELF file {:4}: {}.{}.{}.cubin\n", elf_no, name, elf_no, cuobjdump_arch(e));
      } else if (e.kind == EntryKind::kPtx) {
        ++ptx_no;
        lines += fmt::format("PTX file {:4}: {}.{}.{}.ptx\n", ptx_no, name, ptx_no, cuobjdump_arch(e));
      }
    }
    // cuobjdump names every ELF member of an archive, with or without device code.
    if (r.type == FileType::kArchive)
      out += fmt::format("\nmember {}:{}:\n", member_path.empty() ? display_path : member_path, member);
    out += lines;
  }
  return out;
}

}  // namespace cudiag::inspect
