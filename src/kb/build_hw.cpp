// Builders for the hardware tables: architectures, ptx_isa, gpus.
#include <fmt/format.h>

#include <map>
#include <set>

#include "core/errors.h"
#include "kb/builders.h"

namespace cudiag::kb {

void build_architectures(const TableContext& t, KnowledgeBase::Data& d) {
  std::map<std::string, std::string> rules;  // suffix -> what carries forward
  for (auto& r : table_array(t, "variant_rules")) {
    auto suffix = r.json().contains("suffix") && r.json()["suffix"].is_string()
                      ? r.json()["suffix"].get<std::string>()
                      : "?";
    if (suffix != "" && suffix != "a" && suffix != "f") r.fail("suffix: expected \"\", \"a\" or \"f\"");
    (void)r.provenance();
    if (!rules.emplace(suffix, r.str("text")).second) r.fail("duplicate suffix");
  }
  if (rules.size() != 3)
    throw InputError(t.file + ": variant_rules: need one rule each for \"\", \"a\" and \"f\"");
  for (auto& e : table_array(t, "entries")) {
    Arch a;
    a.cc = e.version("cc");
    e.name_entry(a.cc.text());
    static_cast<Provenance&>(a) = e.provenance();
    a.sm = e.str("sm");
    if (a.sm != fmt::format("sm_{}{}", a.cc.major(), a.cc.minor()))
      e.fail(fmt::format("sm '{}' does not match cc", a.sm));
    a.name = e.str("name");
    a.segment = e.str("segment");
    a.examples = e.strings("examples");
    a.first_cuda = e.opt_version("first_cuda");
    a.first_cuda_at_most = e.opt_version("first_cuda_at_most");
    if (!a.first_cuda && !a.first_cuda_at_most) e.fail("needs first_cuda or first_cuda_at_most");
    a.last_cuda = e.opt_version("last_cuda");
    a.last_driver_branch = e.opt_integer("last_driver_branch");
    a.min_ptx_isa = e.opt_version("min_ptx_isa");
    auto first = a.first_cuda ? a.first_cuda : a.first_cuda_at_most;
    if (a.last_cuda && *a.last_cuda < *first) e.fail("last_cuda is before first_cuda");
    a.carries_forward = rules.at("");
    std::set<std::string> suffixes;
    for (auto& v : e.objects("variants")) {
      ArchVariant var;
      static_cast<Provenance&>(var) = v.provenance(&a);
      var.sm = v.str("sm");
      var.suffix = v.str("suffix");
      if (var.suffix != "a" && var.suffix != "f") v.fail("suffix: expected a or f");
      if (var.sm != a.sm + var.suffix)
        v.fail(fmt::format("sm '{}' does not match {}{}", var.sm, a.sm, var.suffix));
      var.first_cuda = v.opt_version("first_cuda");
      if (var.first_cuda && first && *var.first_cuda < *first) v.fail("first_cuda is before the baseline's");
      var.min_ptx_isa = v.opt_version("min_ptx_isa");
      var.runs_on = v.versions("runs_on");
      var.carries_forward = rules.at(var.suffix);
      if (!suffixes.insert(var.suffix).second) v.fail("duplicate suffix");
      a.variants.push_back(std::move(var));
    }
    if (!d.archs.empty() && !(d.archs.back().cc < a.cc))
      e.fail(fmt::format("out of order or duplicate: after {}", d.archs.back().cc.text()));
    d.archs.push_back(std::move(a));
  }
}

void build_ptx_isa(const TableContext& t, KnowledgeBase::Data& d) {
  for (auto& e : table_array(t, "entries")) {
    PtxIsa p;
    p.cuda = e.version("cuda");
    e.name_entry(p.cuda.text());
    static_cast<Provenance&>(p) = e.provenance();
    p.isa = e.version("ptx_isa");
    p.toolkit_released = e.boolean_or("toolkit_released", true);
    if (!d.ptx.empty()) {
      const auto& prev = d.ptx.back();
      if (!(prev.cuda < p.cuda)) e.fail(fmt::format("out of order or duplicate: after {}", prev.cuda.text()));
      if (p.isa < prev.isa)
        e.fail(
            fmt::format("PTX ISA {} is older than {}'s {}", p.isa.text(), prev.cuda.text(), prev.isa.text()));
    }
    d.ptx.push_back(std::move(p));
  }
}

void build_host_compilers(const TableContext& t, KnowledgeBase::Data& d) {
  for (auto& e : table_array(t, "entries")) {
    HostCompilers h;
    h.cuda = e.version("cuda");
    e.name_entry(h.cuda.text());
    static_cast<Provenance&>(h) = e.provenance();
    h.gcc_max = e.integer("gcc_max");
    h.clang_max = e.opt_integer("clang_max");
    if (!d.host_compilers.empty()) {
      const auto& prev = d.host_compilers.back();
      if (!(prev.cuda < h.cuda)) e.fail(fmt::format("out of order or duplicate: after {}", prev.cuda.text()));
      // nvcc has never dropped a host compiler a previous release accepted.
      if (h.gcc_max < prev.gcc_max)
        e.fail(fmt::format("gcc_max {} is below {}'s {}", h.gcc_max, prev.cuda.text(), prev.gcc_max));
    }
    d.host_compilers.push_back(std::move(h));
  }
}

void build_gpus(const TableContext& t, KnowledgeBase::Data& d) {
  std::set<unsigned> ids;
  for (auto& e : table_array(t, "entries")) {
    Gpu g;
    auto id_text = e.str("pci_id");
    e.name_entry(id_text);
    static_cast<Provenance&>(g) = e.provenance();
    if (id_text.size() != 6 || id_text.rfind("0x", 0) != 0)
      e.fail("pci_id: expected 0x followed by 4 hex digits");
    try {
      std::size_t used = 0;
      g.pci_id = static_cast<unsigned>(std::stoul(id_text.substr(2), &used, 16));
      if (used != 4) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      e.fail("pci_id: expected 0x followed by 4 hex digits");
    }
    g.name = e.str("name");
    g.pci_name = e.str("pci_name");
    g.chip = e.str("chip");
    g.cc = e.version("cc");
    g.segment = e.str("segment");
    if (!ids.insert(g.pci_id).second) e.fail("duplicate pci_id");
    d.gpus.push_back(std::move(g));
  }
}

}  // namespace cudiag::kb
