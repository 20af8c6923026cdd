#include "rules/ngc_support.h"

#include <algorithm>
#include <regex>

#include "rules/rule_support.h"

namespace cudiag::rules {

std::optional<std::pair<std::string, std::string>> stated_ngc_release(const Json& report) {
  if (auto stated = string_at(report, "host.container.ngc_release"))
    return std::pair{*stated, std::string("host.container.ngc_release")};
  auto image = string_at(report, "container.image");
  static const std::regex ngc(R"(^NGC .* (\d\d\.\d\d)\b)");
  std::smatch m;
  if (image && std::regex_search(*image, m, ngc))
    return std::pair{m[1].str(), std::string("container.image")};
  return std::nullopt;
}

std::optional<kb::NgcRelease> ngc_release_of(const Json& report, const kb::KnowledgeBase& kb) {
  auto stated = stated_ngc_release(report);
  return stated ? kb::ngc_release(kb, stated->first) : std::nullopt;
}

bool ngc_forward_compat_serves(const Json& report, const kb::KnowledgeBase& kb) {
  auto release = ngc_release_of(report, kb);
  auto driver = host_driver(report, kb);
  if (!release || !driver.version || driver.version->major() >= release->driver_branch) return false;
  auto gs = gpus(report, kb);
  const bool datacenter = !gs.empty() && std::all_of(gs.begin(), gs.end(), [](const GpuView& g) {
    return g.segment == "datacenter";
  });
  return datacenter && kb::ngc_driver_runs(*release, *driver.version, true);
}

}  // namespace cudiag::rules
