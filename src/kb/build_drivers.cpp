// Builders for the driver tables: toolkit_drivers, minor_version_compat, driver_branches.
#include <fmt/format.h>

#include <set>

#include "kb/builders.h"

namespace cudiag::kb {

namespace {

OsDriver read_os_driver(const EntryReader& row, std::string_view key, const Provenance& prov) {
  OsDriver out;
  out.confidence = prov.confidence;
  auto os = row.object(key);
  if (!os) row.fail(fmt::format("missing {} (use {{}} when nothing is known)", key));
  out.min = os->opt_version("min");
  out.bundled = os->opt_version("bundled");
  out.min_from = os->str_or("min_from", "table3");
  if (out.min_from != "table3" && out.min_from != "bundled") os->fail("min_from: expected table3 or bundled");
  if (out.min_from == "bundled" && out.min && out.bundled && *out.min != *out.bundled)
    os->fail("min_from is bundled but min differs from bundled");
  out.confidence = os->opt_confidence("confidence").value_or(prov.confidence);
  out.note = os->str_or("note", "");
  // The installer carries a driver new enough for its own toolkit.
  if (out.min && out.bundled && *out.bundled < *out.min)
    os->fail(fmt::format("bundled {} is older than min {}", out.bundled->text(), out.min->text()));
  return out;
}

}  // namespace

void build_toolkit_drivers(const TableContext& t, KnowledgeBase::Data& d) {
  std::set<std::string> seen;
  for (auto& row : table_array(t, "entries")) {
    ToolkitRelease r;
    r.cuda = row.version("cuda");
    row.name_entry(r.cuda.text());
    static_cast<Provenance&>(r) = row.provenance();
    r.release = row.str("release");
    r.kind = row.str("kind");
    if (r.kind != "ga" && r.kind != "update" && r.kind != "rc") row.fail("kind: expected ga, update or rc");
    r.linux_driver = read_os_driver(row, "linux", r);
    r.windows_driver = read_os_driver(row, "windows", r);
    // From CUDA 13.4 no installer bundles a driver, so a Table 3 row not yet read leaves the
    // minimum unknown; that has to be said (confidence unconfirmed), never filled from a neighbour.
    if (!r.linux_driver.min && r.linux_driver.confidence != Confidence::kUnconfirmed)
      row.fail("linux.min: missing (give it, or mark linux.confidence unconfirmed with a note)");
    if (!d.toolkits.empty()) {
      const auto& prev = d.toolkits.back();
      if (!(prev.cuda < r.cuda)) row.fail(fmt::format("out of order: after {}", prev.cuda.text()));
      // Within a major a newer toolkit never needs an older driver.
      if (prev.cuda.major() == r.cuda.major()) {
        for (std::string_view os : {"linux", "windows"}) {
          const auto& a = prev.for_os(os);
          const auto& b = r.for_os(os);
          if (a.min && b.min && *b.min < *a.min)
            row.fail(fmt::format("{}.min {} is older than {}'s {}", os, b.min->text(), prev.cuda.text(),
                                 a.min->text()));
        }
      }
    }
    if (!seen.insert(r.cuda.text()).second) row.fail("duplicate cuda");
    d.toolkits.push_back(std::move(r));
  }
}

void build_minor_version_compat(const TableContext& t, KnowledgeBase::Data& d) {
  std::vector<MvcLimit> limits;
  std::set<std::string> limit_ids;
  for (auto& e : table_array(t, "limits")) {
    MvcLimit l;
    l.id = e.str("id");
    e.name_entry(l.id);
    static_cast<Provenance&>(l) = e.provenance();
    l.text = e.str("text");
    for (auto& ref : e.objects("errors")) l.errors.push_back({ref.str("api"), ref.integer("code")});
    if (!limit_ids.insert(l.id).second) e.fail("duplicate id");
    limits.push_back(std::move(l));
  }
  std::set<long> majors;
  for (auto& e : table_array(t, "entries")) {
    MinorVersionCompat m;
    m.cuda_major = e.integer("cuda_major");
    e.name_entry(std::to_string(m.cuda_major));
    static_cast<Provenance&>(m) = e.provenance();
    m.min_branch = e.integer("min_branch");
    m.linux_min = e.opt_version("linux_min");
    m.windows_min = e.opt_version("windows_min");
    m.windows_confidence = e.opt_confidence("windows_confidence").value_or(m.confidence);
    m.upper_branch = e.opt_integer("upper_branch");
    if (!m.linux_min) e.fail("missing linux_min");
    if (m.linux_min->major() != m.min_branch)
      e.fail(fmt::format("linux_min {} is not of branch {}", m.linux_min->text(), m.min_branch));
    if (m.upper_branch && *m.upper_branch <= m.min_branch) e.fail("upper_branch is not above min_branch");
    for (auto& x : e.objects("exceptions")) {
      MvcException ex;
      ex.cuda = x.version("cuda");
      if (ex.cuda.major() != m.cuda_major) x.fail("cuda: not of this major");
      ex.linux_min = x.opt_version("linux_min");
      ex.windows_min = x.opt_version("windows_min");
      ex.note = x.str_or("note", "");
      m.exceptions.push_back(std::move(ex));
    }
    m.limits = limits;
    if (!majors.insert(m.cuda_major).second) e.fail("duplicate cuda_major");
    if (!d.mvc.empty() && d.mvc.back().cuda_major > m.cuda_major) e.fail("out of order");
    d.mvc.push_back(std::move(m));
  }
}

void build_driver_branches(const TableContext& t, KnowledgeBase::Data& d) {
  for (auto& e : table_array(t, "entries")) {
    DriverBranch b;
    b.branch = e.integer("branch");
    e.name_entry("R" + std::to_string(b.branch));
    static_cast<Provenance&>(b) = e.provenance();
    b.cuda = e.version("cuda");
    b.support = e.str_or("support", "");
    if (!d.branches.empty()) {
      const auto& prev = d.branches.back();
      if (prev.branch >= b.branch) e.fail(fmt::format("out of order or duplicate: after R{}", prev.branch));
      if (b.cuda < prev.cuda)
        e.fail(fmt::format("reports {} but the older R{} reports {}", b.cuda.text(), prev.branch,
                           prev.cuda.text()));
    }
    d.branches.push_back(std::move(b));
  }
}

}  // namespace cudiag::kb
