#include "kb/ngc_containers.h"

#include <fmt/format.h>

#include <cctype>
#include <set>

#include "core/errors.h"
#include "kb/builders.h"
#include "kb/reader.h"

namespace cudiag::kb {

namespace {

constexpr const char* kTable = "ngc_containers";

bool is_yy_mm(const std::string& s) {
  return s.size() == 5 && std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::isdigit(static_cast<unsigned char>(s[1])) && s[2] == '.' &&
         std::isdigit(static_cast<unsigned char>(s[3])) && std::isdigit(static_cast<unsigned char>(s[4]));
}

// One entry; every field wrong says which (InputError "ngc_containers: entries[i] (21.10): field: what").
NgcRelease read_release(EntryReader e) {
  NgcRelease r;
  r.release = e.str("release");
  e.name_entry(r.release);
  if (!is_yy_mm(r.release)) e.fail(fmt::format("release: '{}' is not YY.MM", r.release));
  r.cuda = e.version("cuda");
  r.driver_branch = e.integer("driver_branch");
  if (r.driver_branch < 100) e.fail(fmt::format("driver_branch: {} is not a driver branch", r.driver_branch));
  for (auto& b : e.objects("datacenter_branches")) {
    NgcDatacenterBranch d{b.integer("branch"), b.opt_version("min")};
    if (d.min && d.min->major() != d.branch)
      b.fail(fmt::format("min: {} is not of branch {}", d.min->text(), d.branch));
    r.datacenter.push_back(d);
  }
  auto provenance = e.provenance();
  if (!provenance.sources.empty()) r.source = provenance.sources.front().url;
  return r;
}

TableContext context_of(const KnowledgeBase& kb) {
  TableContext t;
  t.file = kTable;
  t.table = kTable;
  t.doc = &kb.raw(kTable);
  if (auto src = t.doc->find("sources"); src != t.doc->end() && src->is_object()) {
    for (const auto& [id, value] : src->items())
      t.sources.emplace(id, parse_source(value, fmt::format("{}: sources.{}", kTable, id)));
  }
  return t;
}

}  // namespace

void build_ngc_containers(const TableContext& t, KnowledgeBase::Data&) {
  std::set<std::string> seen;
  for (auto& e : table_array(t, "entries")) {
    auto r = read_release(e);
    if (!seen.insert(r.release).second)
      throw InputError(fmt::format("{}: {}: release given twice", t.file, r.release));
  }
}

std::vector<NgcRelease> ngc_releases(const KnowledgeBase& kb) {
  // The table was checked when the knowledge base loaded (build_ngc_containers), so reading it again
  // cannot fail on a table cudiag accepted.
  std::vector<NgcRelease> out;
  const auto t = context_of(kb);
  for (auto& e : table_array(t, "entries")) out.push_back(read_release(e));
  return out;
}

std::optional<NgcRelease> ngc_release(const KnowledgeBase& kb, const std::string& yy_mm) {
  for (auto& r : ngc_releases(kb)) {
    if (r.release == yy_mm) return r;
  }
  return std::nullopt;
}

bool ngc_driver_runs(const NgcRelease& r, const Version& driver, bool datacenter_gpu) {
  if (driver.major() >= r.driver_branch) return true;
  if (!datacenter_gpu) return false;
  for (const auto& d : r.datacenter) {
    if (driver.major() == d.branch && (!d.min || !(driver < *d.min))) return true;
  }
  return false;
}

}  // namespace cudiag::kb
