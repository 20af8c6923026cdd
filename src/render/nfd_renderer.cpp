// `--format nfd`: a Node Feature Discovery local feature file (features.d):
// `cudiag.dev/<name>=<value>` lines after an `# +expiry-time=` directive, so
// the labels vanish when cudiag stops refreshing the file. Every name and
// value is checked against nfd-master's rules (a qualified name; a label value
// of at most 63 characters from [A-Za-z0-9-_.] that never starts with '@',
// which NFD reads as a reference to another feature); a value that cannot be
// made valid is left out. The namespace is cudiag's own, never *.kubernetes.io
// or GPU Feature Discovery's nvidia.com. docs/fleet.md lists the labels.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <set>

#include "render/issue_summary.h"
#include "render/nfd_labels.h"
#include "render/render.h"

namespace cudiag::render {

namespace {

constexpr long kExpirySeconds = 3600;  // docs/fleet.md: the DaemonSet refreshes every 5 minutes

std::string str(const Json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && obj[key].is_string() ? obj[key].get<std::string>() : "";
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string rfc3339(long unix_time) {
  std::time_t t = unix_time;
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

struct Lines {
  std::string text;
  std::set<std::string> names;
  void add(const std::string& name, const std::string& raw_value) {
    auto value = nfd_label_value(raw_value);
    std::string key = std::string(kNfdNamespace) + "/" + name;
    if (!value || !is_nfd_feature_name(key) || !names.insert(key).second) return;
    text += key + "=" + *value + "\n";
  }
};

std::string render_nfd(const Json& report, const RenderOptions&) {
  const Json& fleet =
      report.contains("fleet") && report["fleet"].is_object() ? report["fleet"] : Json::object();
  const Json& stack = fleet.contains("stack") && fleet["stack"].is_object() ? fleet["stack"] : Json::object();
  const Json& tool = report.contains("tool") ? report["tool"] : Json::object();

  std::string head = fmt::format("# Node Feature Discovery labels written by cudiag {} (docs/fleet.md)\n",
                                 str(tool, "version"));
  // Without a collection time the labels would never expire; the file then
  // says so and carries none (nfd-master would keep stale labels forever).
  if (!fleet.contains("collected_at_unix") || !fleet["collected_at_unix"].is_number_integer())
    return head + "# no collected_at in the report: no labels\n";
  head += "# +expiry-time=" + rfc3339(fleet["collected_at_unix"].get<long>() + kExpirySeconds) + "\n";

  Lines l;
  bool healthy = true;
  for (const auto& f : report.value("findings", Json::array()))
    healthy = healthy && !(f.is_object() && str(f, "severity") == "error");
  l.add("healthy", healthy ? "true" : "false");
  auto first = str(report, "first_failing_layer");
  l.add("first-failing-layer", first.empty() ? "none" : first);
  for (const auto& v : layer_views(report)) {
    if (v.status != "unknown") l.add(v.name + ".ok", v.status == "error" ? "false" : "true");
  }

  auto driver = str(stack, "driver");
  if (!driver.empty() && driver.find(',') == std::string::npos) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t dot; (dot = driver.find('.', start)) != std::string::npos; start = dot + 1)
      parts.push_back(driver.substr(start, dot - start));
    parts.push_back(driver.substr(start));
    l.add("driver.full", driver);
    l.add("driver.major", parts[0]);
    if (parts.size() > 1) l.add("driver.minor", parts[1]);
    if (parts.size() > 2) l.add("driver.revision", parts[2]);
  }
  l.add("driver.cuda", str(stack, "cuda_driver"));
  l.add("cuda-runtime.newest", str(fleet, "newest_cuda_runtime"));
  l.add("torch.cuda-variant.newest", str(fleet, "torch_cuda_variant"));
  if (fleet.contains("kernel_test") && fleet["kernel_test"].is_boolean())
    l.add("kernel-test.passed", fleet["kernel_test"].get<bool>() ? "true" : "false");

  if (fleet.contains("gpus") && fleet["gpus"].is_array()) {
    std::set<std::string> families;
    for (const auto& g : fleet["gpus"]) {
      if (!str(g, "sm").empty()) l.add("gpu." + str(g, "sm"), "true");
      families.insert(lower(str(g, "architecture")));
    }
    l.add("gpu.count", std::to_string(fleet["gpus"].size()));
    if (families.size() == 1 && !families.begin()->empty()) l.add("gpu.family", *families.begin());
  }
  return head + l.text;
}

const RegisterRenderer kNfd{"nfd", render_nfd};

}  // namespace
}  // namespace cudiag::render
