#include "inspect/listing.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

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
      case EntryKind::kSass:
        sass.insert(e.arch);
        break;
      case EntryKind::kPtx: {
        auto& isas = ptx[e.arch];
        if (auto isa = e.ptx_isa()) isas.insert(*isa);
        break;
      }
      case EntryKind::kLtoIr:
        lto.insert(e.arch);
        break;
      case EntryKind::kUnknown:
        ++unknown;
        break;
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

namespace {

// Pretty-printed JSON written straight into a string, laid out exactly as
// nlohmann::json::dump(2) lays it out (so the output did not change when the
// tree went away): "{}" / "[]" when empty, one member or element per line,
// `"key": value`, strings escaped the same way (invalid UTF-8 -> U+FFFD).
class PrettyJson {
 public:
  PrettyJson(std::string& out, int indent) : out_(out), base_(indent) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  // The next member of the current object.
  PrettyJson& key(std::string_view k) {
    next_item();
    string(k);
    out_ += ": ";
    return *this;
  }
  // The next element of the current array.
  PrettyJson& element() {
    next_item();
    return *this;
  }
  void string(std::string_view s) {
    bool plain = std::all_of(s.begin(), s.end(), [](char c) {
      auto u = static_cast<unsigned char>(c);
      return u >= 0x20 && u < 0x7f && c != '"' && c != '\\';
    });
    if (plain) {
      out_ += '"';
      out_ += s;
      out_ += '"';
    } else {
      out_ += json_text(Json(std::string(s)), -1);
    }
  }
  void number(std::uint64_t v) { fmt::format_to(std::back_inserter(out_), "{}", v); }
  void number(std::int64_t v) { fmt::format_to(std::back_inserter(out_), "{}", v); }
  void boolean(bool v) { out_ += v ? "true" : "false"; }
  void strings(const std::vector<std::string>& list) {
    begin_array();
    for (const auto& s : list) element().string(s);
    end_array();
  }
  // A value of unknown shape, through nlohmann (small: used for `extra`).
  void json(const Json& j) {
    std::string text = json_text(j, 2);
    std::string pad = "\n" + std::string(static_cast<std::size_t>(base_ + 2 * depth()), ' ');
    for (char c : text) {
      if (c == '\n')
        out_ += pad;
      else
        out_ += c;
    }
  }

 private:
  int depth() const { return static_cast<int>(counts_.size()); }
  void newline_indent(int level) {
    out_ += '\n';
    out_.append(static_cast<std::size_t>(base_ + 2 * level), ' ');
  }
  void open(char c) {
    out_ += c;
    counts_.push_back(0);
  }
  void close(char c) {
    bool empty = counts_.back() == 0;
    counts_.pop_back();
    if (!empty) newline_indent(depth());
    out_ += c;
  }
  void next_item() {
    if (counts_.back()++ > 0) out_ += ',';
    newline_indent(depth());
  }

  std::string& out_;
  int base_;
  std::vector<std::size_t> counts_;  // items so far in each open container
};

}  // namespace

void append_json(const InspectResult& r, std::string& out, int indent, const Json& extra) {
  PrettyJson w(out, indent);
  w.begin_object();
  w.key("path").string(r.path);
  w.key("type").string(file_type_name(r));
  w.key("size").number(r.file_size);
  w.key("summary").string(summary_line(r));
  if (!r.soname.empty()) w.key("soname").string(r.soname);
  w.key("needed").strings(r.needed);
  w.key("rpath").strings(r.rpath);
  w.key("runpath").strings(r.runpath);
  w.key("modules").begin_array();
  for (const auto& b : r.blobs) {
    w.element().begin_object();
    w.key("section").string(b.section);
    w.key("offset").number(b.offset);
    w.key("size").number(b.size);
    w.key("entries").number(static_cast<std::uint64_t>(b.entry_count));
    w.key("device_link").boolean(b.device_link);
    if (!b.member.empty()) w.key("member").string(b.member);
    w.end_object();
  }
  w.end_array();
  w.key("entries").begin_array();
  for (const auto& e : r.entries) {
    w.element().begin_object();
    w.key("kind").string(kind_name(e.kind));
    w.key("arch").string(entry_arch_name(e));
    w.key("variant").string(variant_suffix(e.arch.variant));
    if (auto isa = e.ptx_isa()) w.key("ptx_isa").string(isa->text());
    w.key("compression").string(compression_name(e.compression));
    w.key("offset").number(e.offset);
    w.key("payload_size").number(e.payload_size);
    w.key("compressed_size").number(static_cast<std::uint64_t>(e.compressed_size));
    w.key("uncompressed_size").number(e.content_size());
    w.key("flags").string(fmt::format("{:#x}", e.flags));
    w.key("module").number(static_cast<std::uint64_t>(e.blob));
    if (e.kind == EntryKind::kUnknown) w.key("raw_kind").number(static_cast<std::uint64_t>(e.raw_kind));
    if (!e.identifier.empty()) w.key("identifier").string(e.identifier);
    if (e.cubin) {
      w.key("cubin").begin_object();
      w.key("abi_version").number(static_cast<std::uint64_t>(e.cubin->abi_version));
      w.key("os_abi").number(static_cast<std::uint64_t>(e.cubin->os_abi));
      w.key("elf_type")
          .string(e.cubin->elf_type == 1   ? "relocatable"
                  : e.cubin->elf_type == 2 ? "executable"
                                           : "other");
      w.key("e_flags").string(fmt::format("{:#x}", e.cubin->e_flags));
      w.key("sm").number(static_cast<std::int64_t>(e.cubin->sm));
      w.end_object();
    }
    if (e.ptx_text_version || !e.ptx_text_target.empty()) {
      w.key("ptx_text").begin_object();
      w.key("version").string(e.ptx_text_version ? e.ptx_text_version->text() : "");
      w.key("target").string(e.ptx_text_target);
      w.end_object();
    }
    w.end_object();
  }
  w.end_array();
  if (!r.warnings.empty()) w.key("warnings").strings(r.warnings);
  if (!r.error.empty()) w.key("error").string(r.error);
  for (const auto& [k, v] : extra.items()) w.key(k).json(v);
  w.end_object();
}

std::string cuobjdump_listing(const InspectResult& r, const std::string& display_path,
                              const std::string& member_path) {
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
