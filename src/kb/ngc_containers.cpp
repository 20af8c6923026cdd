#include "kb/ngc_containers.h"

namespace cudiag::kb {

namespace {

std::optional<NgcRelease> from_entry(const Json& e) {
  if (!e.is_object()) return std::nullopt;
  auto cuda = Version::parse(e.value("cuda", ""));
  if (!cuda || !e.contains("release") || !e.contains("driver_branch")) return std::nullopt;
  NgcRelease r{e["release"].get<std::string>(), *cuda, e["driver_branch"].get<long>(), {}, ""};
  for (const auto& b : e.value("datacenter_branches", Json::array())) {
    NgcDatacenterBranch d{b.value("branch", 0L), std::nullopt};
    if (b.contains("min")) d.min = Version::parse(b["min"].get<std::string>());
    r.datacenter.push_back(d);
  }
  const Json& src = e.value("source", Json::array());
  if (src.is_array() && !src.empty() && src[0].is_object()) r.source = src[0].value("url", "");
  return r;
}

}  // namespace

std::vector<NgcRelease> ngc_releases(const KnowledgeBase& kb) {
  std::vector<NgcRelease> out;
  const Json& table = kb.raw("ngc_containers");
  if (!table.is_object() || !table.contains("entries")) return out;
  for (const auto& e : table["entries"]) {
    if (auto r = from_entry(e)) out.push_back(std::move(*r));
  }
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
