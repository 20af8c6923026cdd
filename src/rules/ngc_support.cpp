#include "rules/ngc_support.h"

#include <algorithm>
#include <regex>

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

bool all_datacenter_gpus(const std::vector<GpuView>& list) {
  return !list.empty() &&
         std::all_of(list.begin(), list.end(), [](const GpuView& g) { return g.segment == "datacenter"; });
}

std::optional<Version> ngc_forward_compat_cuda(const Json& report, const kb::KnowledgeBase& kb) {
  auto release = ngc_release_of(report, kb);
  auto driver = host_driver(report, kb);
  if (!release || !driver.version || driver.version->major() >= release->driver_branch) return std::nullopt;
  if (!all_datacenter_gpus(gpus(report, kb)) || !kb::ngc_driver_runs(*release, *driver.version, true))
    return std::nullopt;
  return release->cuda;
}

bool ngc_compat_covers(const std::optional<Version>& served, const Version& build) {
  if (!served) return false;
  if (build.major() != served->major()) return build.major() < served->major();
  return build.minor() <= served->minor();
}

}  // namespace cudiag::rules
