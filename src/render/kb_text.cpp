#include "render/kb_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "core/text_wrap.h"
#include "kb/records.h"

namespace cudiag::render {
namespace {

constexpr std::size_t kWidth = 80;

std::string wrap(std::string_view first, std::string_view text, std::size_t indent) {
  return word_wrap(first, text, indent, kWidth);
}

std::string opt_text(const std::optional<Version>& v, std::string_view none = "unknown") {
  return v ? v->text() : std::string(none);
}

std::string confidence_tag(kb::Confidence c) {
  return c == kb::Confidence::kConfirmed ? "" : fmt::format(" [{}]", kb::to_string(c));
}

void print_sources(std::ostream& out, const std::vector<kb::Source>& sources) {
  out << "  Sources:\n";
  std::vector<std::string> seen;
  for (const auto& s : sources) {
    auto key = s.url + s.section;
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    out << wrap("    - ", s.url, 6) << wrap("      ", s.section, 6);
  }
}

void print_note(std::ostream& out, const std::string& note) {
  if (!note.empty()) out << wrap("  Note: ", note, 8);
}

}  // namespace

std::string kb_driver_for_unknown_text(const std::string& version, const std::string& os,
                                       const std::vector<const kb::ToolkitRelease*>& nearest) {
  std::ostringstream out;
  out << fmt::format(
      "CUDA {}: unknown — the knowledge base has no row for this release, so its minimum driver is "
      "unknown.\n",
      version);
  out << "  Nearest known releases (not this release's answer):\n";
  for (const auto* r : nearest) {
    const auto& col = r->for_os(os);
    out << fmt::format("    {:<8} {:<16} {}\n", r->cuda.text(), r->release,
                       col.min ? "driver >= " + col.min->text() : std::string("minimum unknown"));
  }
  return out.str();
}

std::string kb_driver_for_text(const std::string& version, const std::string& os,
                               const kb::DriverRequirement& req) {
  std::ostringstream out;
  const auto& rel = *req.release;
  out << fmt::format("CUDA {} ({}, {}) on {}\n", version, rel.cuda.text(), rel.release,
                     os == "windows" ? "Windows" : "Linux x86_64");
  if (req.full_min) {
    std::string how = req.full_min_from == "bundled" ? "bundled driver; Table 3 not read" : "RN Table 3";
    out << wrap(
        "  Full features:          ",
        fmt::format("driver >= {} ({}){}", req.full_min->text(), how, confidence_tag(req.full_confidence)),
        26);
  } else {
    out << "  Full features:          not in the knowledge base" << confidence_tag(req.full_confidence)
        << "\n";
  }
  if (req.mvc) {
    if (req.mvc_min) {
      auto conf = os == "windows" ? req.mvc->windows_confidence : req.mvc->confidence;
      out << wrap("  Minor-version compat:   ",
                  fmt::format("driver >= {} (any CUDA {}.x app, limited){}", req.mvc_min->text(),
                              req.mvc->cuda_major, confidence_tag(conf)),
                  26);
    } else {
      out << fmt::format("  Minor-version compat:   CUDA {}.x minimum not in the knowledge base\n",
                         req.mvc->cuda_major);
    }
  } else {
    out << "  Minor-version compat:   none before CUDA 11: this release needs its own driver\n";
  }
  if (req.bundled && (!req.full_min || *req.bundled != *req.full_min))
    out << fmt::format("  Bundled with installer: {}\n", req.bundled->text());
  if (req.mvc && !req.mvc->limits.empty()) {
    out << "  Under minor-version compatibility:\n";
    for (const auto& l : req.mvc->limits) out << wrap("    - ", l.text, 6);
  }
  print_note(out, rel.note);
  print_note(out, rel.for_os(os).note);
  if (req.mvc) print_note(out, req.mvc->note);
  print_sources(out, req.sources);
  return out.str();
}

std::string kb_cuda_for_driver_text(const Version& driver, const kb::BranchMatch& m) {
  std::ostringstream out;
  const auto& b = *m.branch;
  if (m.exact) {
    out << fmt::format("Driver {} (branch R{}) supports CUDA {}{}\n", driver.text(), b.branch, b.cuda.text(),
                       confidence_tag(b.confidence));
  } else {
    out << wrap("",
                fmt::format("Driver {}: branch R{} is not in the knowledge base; the nearest older branch "
                            "R{} supports CUDA {}, "
                            "so this driver supports at least that.",
                            driver.text(), driver.major(), b.branch, b.cuda.text()),
                0);
  }
  out << "  (the value of cuDriverGetVersion and nvidia-smi's \"CUDA Version\")\n";
  if (!b.support.empty()) out << fmt::format("  Support: {}\n", b.support);
  print_note(out, b.note);
  print_sources(out, b.sources);
  return out.str();
}

std::string kb_arch_text(const kb::ArchMatch& m) {
  std::ostringstream out;
  const auto& a = *m.arch;
  out << fmt::format("{} (compute capability {}): {}{}\n", m.variant ? m.variant->sm : a.sm, a.cc.text(),
                     a.name, a.segment == "unknown" ? "" : ", " + a.segment);
  if (!a.examples.empty()) {
    std::string ex;
    for (const auto& e : a.examples) ex += (ex.empty() ? "" : ", ") + e;
    out << wrap("  GPUs:                 ", ex, 24);
  }
  std::string first =
      a.first_cuda ? a.first_cuda->text() : fmt::format("{} or earlier", opt_text(a.first_cuda_at_most));
  out << fmt::format("  SASS from CUDA:       {}\n", first);
  out << fmt::format("  Last CUDA with SASS:  {}\n",
                     a.last_cuda ? a.last_cuda->text() : "current (still targeted)");
  out << fmt::format(
      "  Last driver branch:   {}\n",
      a.last_driver_branch ? fmt::format("R{}", *a.last_driver_branch)
      : a.segment == "embedded"
          ? std::string(
                "JetPack decides (Jetson modules use the L4T driver stack, not a desktop/datacenter branch)")
          : std::string("current (still supported)"));
  if (a.min_ptx_isa) out << fmt::format("  Needs PTX ISA:        {} or newer\n", a.min_ptx_isa->text());
  out << wrap("  Carries forward:      ", a.carries_forward, 24);
  if (!a.variants.empty()) {
    out << "  Variants:\n";
    for (const auto& v : a.variants) {
      std::string line = fmt::format("from CUDA {}", opt_text(v.first_cuda));
      if (v.min_ptx_isa) line += fmt::format(", PTX ISA {}", v.min_ptx_isa->text());
      if (!v.runs_on.empty()) {
        std::string runs;
        for (const auto& r : v.runs_on) runs += (runs.empty() ? "" : ", ") + r.text();
        line += fmt::format(", runs on {}", runs);
      }
      line += confidence_tag(v.confidence) + ". " + v.carries_forward;
      out << wrap(fmt::format("    {:<9} ", v.sm), line, 14);
    }
  }
  if (a.confidence != kb::Confidence::kConfirmed)
    out << fmt::format("  Confidence: {}\n", kb::to_string(a.confidence));
  print_note(out, a.note);
  print_sources(out, a.sources);
  return out.str();
}

std::string kb_errors_text(const std::vector<const kb::ErrorCode*>& found) {
  std::ostringstream out;
  for (std::size_t i = 0; i < found.size(); ++i) {
    const auto& e = *found[i];
    if (i) out << "\n";
    const auto* api = kb::error_api(e.api);
    std::string api_text = api ? fmt::format("{} ({})", api->label, api->type) : e.api;
    out << fmt::format("{} = {}, {}{}\n", e.name, e.code, api_text, confidence_tag(e.confidence));
    out << wrap("  ", e.meaning, 2);
    if (!e.note.empty()) out << wrap("  Cause: ", e.note, 9);
    print_sources(out, e.sources);
  }
  return out.str();
}

std::string kb_gpus_text(const std::vector<std::pair<const kb::Gpu*, const kb::Arch*>>& found) {
  std::ostringstream out;
  for (const auto& [g, a] : found) {
    out << fmt::format("{:<44} 10de:{:04x}  cc {:<4}  {}\n", g->name, g->pci_id, g->cc.text(),
                       a ? fmt::format("{} {}", a->sm, a->name) : std::string("?"));
  }
  std::vector<kb::Source> sources;
  for (const auto& found_gpu : found)
    sources.insert(sources.end(), found_gpu.first->sources.begin(), found_gpu.first->sources.end());
  print_sources(out, sources);
  return out.str();
}

std::string kb_ptx_of_cuda_text(const kb::PtxIsa& row, const Version& isa) {
  std::ostringstream out;
  out << fmt::format("CUDA {} generates PTX ISA {}{}\n", row.cuda.text(), isa.text(),
                     confidence_tag(row.confidence));
  out << wrap("  ",
              fmt::format("A driver that reports CUDA {} JIT-compiles PTX up to .version {}.",
                          row.cuda.text(), isa.text()),
              2);
  print_note(out, row.note);
  print_sources(out, row.sources);
  return out.str();
}

std::string kb_cuda_of_ptx_text(const kb::PtxIsa& row, const Version& isa, const Version& cuda) {
  std::ostringstream out;
  out << fmt::format("PTX ISA {} needs CUDA {} or newer{}\n", isa.text(), cuda.text(),
                     confidence_tag(row.confidence));
  out << wrap("  ",
              fmt::format("To JIT it, the driver must report CUDA {} or newer (cudiag kb cuda-for-driver); "
                          "to build or link it, "
                          "nvcc, nvJitLink or nvPTXCompiler {} or newer.",
                          cuda.text(), cuda.text()),
              2);
  print_note(out, row.note);
  print_sources(out, row.sources);
  return out.str();
}

std::string kb_tables_text(const std::string& origin, const std::vector<kb::TableInfo>& tables) {
  std::ostringstream out;
  out << fmt::format("Knowledge base: {}\n", origin);
  for (const auto& t : tables) {
    out << fmt::format("\n{:<22} {:>4} entries  {}\n", t.name, t.entries, t.file);
    for (const auto& s : t.sources) out << wrap("    - ", s.url, 6);
  }
  return out.str();
}

}  // namespace cudiag::render
