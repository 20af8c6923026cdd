// The lookups behind KnowledgeBase's API.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "core/errors.h"
#include "kb/data.h"

namespace cudiag::kb {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool same_minor(const Version& a, const Version& b) {
  return a.major() == b.major() && a.minor() == b.minor();
}

// Words of a GPU name: lower-case runs of letters and digits ("Tesla V100-SXM2-16GB" -> tesla v100 sxm2
// 16gb).
std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

// Brand words that nvidia-smi and users add or drop freely.
bool optional_word(const std::string& w) {
  return w == "nvidia" || w == "geforce" || w == "tesla" || w == "quadro";
}

// Memory size and form factor in a product name ("80GB", "HBM3", "SXM5", "PCIe"): nvidia-smi's
// names and pci.ids' disagree on them, so a query need not match them, though matching counts.
bool decoration(const std::string& w) {
  auto digits_then = [&](const char* suffix) {
    auto n = std::string(suffix).size();
    return w.size() > n && w.ends_with(suffix) &&
           std::all_of(w.begin(), w.end() - static_cast<long>(n),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
  };
  return digits_then("gb") || w.starts_with("hbm") || w.starts_with("gddr") || w.starts_with("sxm") ||
         w == "pcie";
}

bool has_digit(const std::string& w) {
  return std::any_of(w.begin(), w.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

// --- error codes

const ErrorCode* KnowledgeBase::error(std::string_view api, long code) const {
  for (const auto& e : d_->errors) {
    if (e.api == api && e.code == code) return &e;
  }
  return nullptr;
}

const ErrorCode* KnowledgeBase::error_named(std::string_view name) const {
  auto want = lower(name);
  for (const auto& e : d_->errors) {
    if (lower(e.name) == want) return &e;
  }
  return nullptr;
}

std::vector<const ErrorCode*> KnowledgeBase::errors_with_code(long code) const {
  std::vector<const ErrorCode*> out;
  for (const auto& e : d_->errors) {
    if (e.code == code) out.push_back(&e);
  }
  return out;
}

const ErrorCode* KnowledgeBase::runtime_error_with_legacy_code(long code) const {
  for (const auto& e : d_->errors) {
    if (e.legacy_code == code) return &e;
  }
  return nullptr;
}

std::vector<const ErrorCode*> KnowledgeBase::errors_with_message(std::string_view text) const {
  auto have = lower(text);
  std::size_t best = 0;
  std::vector<const ErrorCode*> out;
  for (const auto& e : d_->errors) {
    if (e.message.empty() || e.message.size() < best) continue;
    auto want = lower(e.message);
    if (!have.starts_with(want)) continue;
    if (have.size() > want.size() && std::isalnum(static_cast<unsigned char>(have[want.size()])) != 0)
      continue;
    if (want.size() > best) {
      best = want.size();
      out.clear();
    }
    out.push_back(&e);
  }
  return out;
}

const std::vector<ErrorCode>& KnowledgeBase::errors() const { return d_->errors; }

// --- toolkit -> driver

std::optional<DriverRequirement> KnowledgeBase::driver_for_cuda(const Version& cuda,
                                                                std::string_view os) const {
  const ToolkitRelease* row = nullptr;
  if (cuda.parts().size() >= 3) {
    for (const auto& r : d_->toolkits) {
      if (r.cuda == cuda) row = &r;
    }
    // An update level we do not list (13.2.1 before its row existed) is unknown, never a
    // neighbour's answer; a build number (9.0.176 for 9.0.76) still means that minor.
    if (!row && cuda.part(2) < 10) return std::nullopt;
  }
  if (!row) {
    // "12.4" is what a runtime reports: the GA row of that minor, else its first row that is not a release
    // candidate.
    for (const auto& r : d_->toolkits) {
      if (!same_minor(r.cuda, cuda) || r.kind == "rc") continue;
      if (r.kind == "ga") {
        row = &r;
        break;
      }
      if (!row) row = &r;
    }
  }
  if (!row) return std::nullopt;
  DriverRequirement req;
  req.release = row;
  req.os = std::string(os);
  const auto& col = row->for_os(os);
  req.full_min = col.min;
  req.full_min_from = col.min_from;
  req.full_confidence = col.confidence;
  req.bundled = col.bundled;
  req.sources = row->sources;
  req.mvc = mvc_for_major(row->cuda.major());
  if (req.mvc) {
    req.mvc_min = req.mvc->min_for(os, row->cuda);
    // Minor-version compatibility never asks for more than the release itself does.
    if (req.mvc_min && req.full_min && *req.full_min < *req.mvc_min) req.mvc_min = req.full_min;
    req.sources.insert(req.sources.end(), req.mvc->sources.begin(), req.mvc->sources.end());
  }
  return req;
}

const std::vector<ToolkitRelease>& KnowledgeBase::toolkit_releases() const { return d_->toolkits; }

std::vector<const ToolkitRelease*> KnowledgeBase::nearest_toolkit_releases(const Version& cuda) const {
  const ToolkitRelease* below = nullptr;
  const ToolkitRelease* above = nullptr;
  for (const auto& r : d_->toolkits) {
    if (r.cuda < cuda && (!below || below->cuda < r.cuda)) below = &r;
    if (cuda < r.cuda && (!above || r.cuda < above->cuda)) above = &r;
  }
  std::vector<const ToolkitRelease*> out;
  for (const auto* r : {below, above}) {
    if (r) out.push_back(r);
  }
  return out;
}

const MinorVersionCompat* KnowledgeBase::mvc_for_major(long cuda_major) const {
  for (const auto& m : d_->mvc) {
    if (m.cuda_major == cuda_major) return &m;
  }
  return nullptr;
}

const std::vector<MinorVersionCompat>& KnowledgeBase::mvc() const { return d_->mvc; }

// --- driver -> CUDA

std::optional<BranchMatch> KnowledgeBase::branch_for_driver(const Version& driver) const {
  const DriverBranch* best = nullptr;
  for (const auto& b : d_->branches) {
    if (b.branch <= driver.major()) best = &b;
  }
  if (!best) return std::nullopt;
  return BranchMatch{best, best->branch == driver.major()};
}

std::optional<Version> KnowledgeBase::cuda_for_driver(const Version& driver) const {
  auto m = branch_for_driver(driver);
  if (!m) return std::nullopt;
  return m->branch->cuda;
}

const std::vector<DriverBranch>& KnowledgeBase::driver_branches() const { return d_->branches; }

// --- PTX ISA

std::optional<Version> KnowledgeBase::ptx_isa_for_cuda(const Version& cuda) const {
  for (const auto& p : d_->ptx) {
    if (same_minor(p.cuda, cuda)) return p.isa;
  }
  return std::nullopt;
}

std::optional<Version> KnowledgeBase::cuda_for_ptx_isa(const Version& isa) const {
  for (const auto& p : d_->ptx) {
    if (isa <= p.isa) return p.cuda;
  }
  return std::nullopt;
}

const std::vector<PtxIsa>& KnowledgeBase::ptx_isas() const { return d_->ptx; }

// --- host compilers

const HostCompilers* KnowledgeBase::host_compilers_for(const Version& cuda) const {
  const HostCompilers* found = nullptr;
  for (const auto& h : d_->host_compilers) {
    if (cuda < h.cuda) break;
    found = &h;
  }
  return found;
}

std::optional<Version> KnowledgeBase::first_cuda_for_gcc(long gcc_major) const {
  for (const auto& h : d_->host_compilers) {
    if (h.gcc_max >= gcc_major) return h.cuda;
  }
  return std::nullopt;
}

const std::vector<HostCompilers>& KnowledgeBase::host_compilers() const { return d_->host_compilers; }

// --- architectures

std::optional<ArchMatch> KnowledgeBase::arch_match(std::string_view text) const {
  std::string s = lower(text);
  for (std::string_view prefix : {"sm_", "compute_", "lto_", "sm", "cc"}) {
    if (s.rfind(prefix, 0) == 0) {
      s.erase(0, prefix.size());
      break;
    }
  }
  std::string suffix;
  if (!s.empty() && (s.back() == 'a' || s.back() == 'f')) {
    suffix = s.substr(s.size() - 1);
    s.pop_back();
  }
  std::optional<Version> cc;
  if (s.find('.') != std::string::npos) {
    cc = Version::parse(s);
  } else if (s.size() >= 2 && std::all_of(s.begin(), s.end(), [](char c) {
               return std::isdigit(static_cast<unsigned char>(c));
             })) {
    // "120" is 12.0, "90" is 9.0: the last digit is the minor.
    cc = Version::parse(s.substr(0, s.size() - 1) + "." + s.substr(s.size() - 1));
  }
  if (!cc) return std::nullopt;
  const Arch* a = arch_for_cc(*cc);
  if (!a) return std::nullopt;
  ArchMatch m{a, nullptr};
  if (!suffix.empty()) {
    m.variant = a->variant(suffix);
    if (!m.variant) return std::nullopt;
  }
  return m;
}

const Arch* KnowledgeBase::arch(std::string_view sm_or_cc) const {
  auto m = arch_match(sm_or_cc);
  return m ? m->arch : nullptr;
}

const Arch* KnowledgeBase::arch_for_cc(const Version& cc) const {
  for (const auto& a : d_->archs) {
    if (same_minor(a.cc, cc) && cc.parts().size() <= 2) return &a;
  }
  return nullptr;
}

const std::vector<Arch>& KnowledgeBase::archs() const { return d_->archs; }

namespace {

// "gtx 1080 ti" -> {"gtx", "1080"}; {} when the name has no GTX/RTX number of `min_digits` to 4
// digits (a series example may have two: "GeForce RTX 30xx").
std::pair<std::string, std::string> geforce_model(std::string_view name, std::size_t min_digits = 3) {
  std::string l(name);
  for (auto& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* family : {"gtx", "rtx"}) {
    auto at = l.find(family);
    if (at == std::string::npos) continue;
    std::size_t i = at + 3;
    while (i < l.size() && (l[i] == ' ' || l[i] == '-')) ++i;
    std::size_t j = i;
    while (j < l.size() && std::isdigit(static_cast<unsigned char>(l[j]))) ++j;
    if (j - i >= min_digits && j - i <= 4) return {family, l.substr(i, j - i)};
  }
  return {};
}

}  // namespace

const Arch* KnowledgeBase::arch_for_geforce_series(std::string_view name) const {
  auto [family, number] = geforce_model(name);
  if (number.empty()) return nullptr;
  const Arch* exact = nullptr;
  std::vector<const Arch*> series;
  for (const auto& a : d_->archs) {
    for (const auto& ex : a.examples) {
      auto [ex_family, ex_number] = geforce_model(ex, 2);
      if (ex_family != family || ex_number.empty()) continue;
      std::string l(ex);
      for (auto& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      auto tail = l.substr(l.find(ex_number) + ex_number.size());
      if (ex_number == number) {
        exact = &a;
        continue;
      }
      // "10xx": a four-digit series; "900", "600/700": hundreds of three-digit models.
      bool four =
          tail.rfind("xx", 0) == 0 && number.size() == 4 && number.compare(0, 2, ex_number, 0, 2) == 0;
      bool hundreds =
          number.size() == 3 && ex_number.size() == 3 && ex_number.substr(1) == "00" &&
          (number[0] == ex_number[0] || (tail.size() > 1 && tail[0] == '/' && tail[1] == number[0]));
      if (four || hundreds) series.push_back(&a);
    }
  }
  if (exact) return exact;
  if (series.empty()) return nullptr;
  for (const auto* a : series) {
    if (!(a->cc == series.front()->cc)) return nullptr;  // the series spans architectures
  }
  return series.front();
}

// --- GPUs

std::vector<const Gpu*> KnowledgeBase::gpus_matching(std::string_view name) const {
  std::vector<std::string> want;
  for (auto& w : words(name)) {
    if (!optional_word(w)) want.push_back(std::move(w));
  }
  if (want.empty()) return {};
  struct Scored {
    const Gpu* gpu;
    std::size_t matched;
    std::size_t extra;  // words of the product name not asked for: fewer is a closer match
  };
  std::vector<Scored> scored;
  for (const auto& g : d_->gpus) {
    std::vector<std::string> have;
    for (auto& w : words(g.name)) {
      if (!optional_word(w)) have.push_back(std::move(w));
    }
    // Every word asked for must be in the name: "RTX PRO 5000 Blackwell" is
    // not "Quadro RTX 5000", whatever they share.
    std::size_t matched = 0;
    bool model_word = false;
    bool complete = true;
    for (const auto& w : want) {
      if (std::find(have.begin(), have.end(), w) != have.end()) {
        ++matched;
        // TITAN names carry no number ("TITAN X", "GeForce GTX TITAN Black"): the word is the model's.
        model_word = model_word || (has_digit(w) && !decoration(w)) || w == "titan";
      } else if (!decoration(w)) {
        complete = false;
      }
    }
    if (!complete || !model_word) continue;
    scored.push_back({&g, matched, have.size() - matched});
  }
  // The most specific first: an exact name, then the most words matched, then the fewest not asked for.
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    return a.extra != b.extra && (a.extra == 0 || b.extra == 0) ? a.extra < b.extra
           : a.matched != b.matched                             ? a.matched > b.matched
                                                                : a.extra < b.extra;
  });
  if (!scored.empty() && scored.front().extra == 0) {
    while (!scored.empty() && scored.back().extra != 0) scored.pop_back();
  }
  std::vector<const Gpu*> out;
  for (const auto& s : scored) out.push_back(s.gpu);
  return out;
}

const Gpu* KnowledgeBase::gpu_by_pci_id(unsigned device_id) const {
  for (const auto& g : d_->gpus) {
    if (g.pci_id == device_id) return &g;
  }
  return nullptr;
}

const std::vector<Gpu>& KnowledgeBase::gpus() const { return d_->gpus; }

// --- forward compatibility, libraries

const ForwardCompat& KnowledgeBase::forward_compat() const { return d_->fwd; }

const Library* KnowledgeBase::library(std::string_view name, long cuda_major) const {
  auto want = lower(name);
  for (const auto& l : d_->libraries) {
    if (lower(l.library) == want && l.cuda_major == cuda_major) return &l;
  }
  return nullptr;
}

std::vector<const Library*> KnowledgeBase::libraries_named(std::string_view name) const {
  std::vector<const Library*> out;
  auto want = lower(name);
  for (const auto& l : d_->libraries) {
    if (lower(l.library) == want) out.push_back(&l);
  }
  return out;
}

const std::vector<Library>& KnowledgeBase::libraries() const { return d_->libraries; }

const VersionEncoding* KnowledgeBase::encoding_for(std::string_view library, long code) const {
  auto want = lower(library);
  for (const auto& e : d_->encodings) {
    if (lower(e.library) == want && e.covers(code)) return &e;
  }
  return nullptr;
}

std::optional<Version> KnowledgeBase::decode_version(std::string_view library, long code) const {
  const auto* e = encoding_for(library, code);
  if (!e) return std::nullopt;
  return e->decode(code);
}

const std::vector<VersionEncoding>& KnowledgeBase::encodings() const { return d_->encodings; }

// --- tables

const Json& KnowledgeBase::raw(std::string_view table) const {
  auto it = d_->raw.find(table);
  if (it == d_->raw.end()) throw InputError(fmt::format("{}: no such table in the knowledge base", table));
  return it->second;
}

std::vector<TableInfo> KnowledgeBase::tables() const {
  std::vector<TableInfo> out;
  auto add = [&](const std::string& name) {
    const Json& doc = d_->raw.at(name);
    TableInfo t;
    t.name = name;
    t.file = d_->files.at(name);
    t.description = doc.value("description", "");
    // Entries of every top-level array: limits, rules and the like count too.
    for (const auto& [key, value] : doc.items()) {
      if (value.is_array()) t.entries += value.size();
    }
    for (const auto& [id, s] : doc["sources"].items())
      t.sources.push_back({s.value("url", ""), s.value("section", "")});
    out.push_back(std::move(t));
  };
  for (const auto& name : required_tables()) add(name);
  for (const auto& [name, doc] : d_->raw) {
    if (std::find(required_tables().begin(), required_tables().end(), name) == required_tables().end())
      add(name);
  }
  return out;
}

const std::string& KnowledgeBase::origin() const { return d_->origin; }

}  // namespace cudiag::kb
