#include "workflow/fleet_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <optional>

#include "kb/knowledge_base.h"
#include "rules/rule_support.h"
#include "workflow/stack.h"

namespace cudiag::workflow {

namespace {

// Stack keys as label names: Prometheus label names and NFD feature names take
// no dots inside one word ("driver.cuda" -> "cuda_driver", "torch.cuda" -> "torch_cuda").
std::string stack_label(const std::string& key) {
  if (key == "driver.cuda") return "cuda_driver";
  std::string out = key;
  std::replace(out.begin(), out.end(), '.', '_');
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

std::string join(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ",") + v;
  return out;
}

// "00000000:1B:00.0" (NVML) and "0000:1b:00.0" (sysfs) name the same device.
std::string bus_key(std::string bus) {
  std::transform(bus.begin(), bus.end(), bus.begin(), [](unsigned char c) { return std::tolower(c); });
  auto colon = bus.find(':');
  if (colon != std::string::npos && colon > 4) bus = bus.substr(colon - 4);
  return bus;
}

std::string text_of(const Json& node) {
  const Json& v = node.is_object() && node.contains("value") ? node["value"] : node;
  return v.is_string() ? v.get<std::string>() : "";
}

// The GPU UUID some layer recorded for a bus id (identity: the redaction of
// the rendered report drops it unless --include-identity).
std::string uuid_for(const Json& report, const std::string& bus) {
  if (bus.empty()) return "";
  for (const auto& [layer, list, key] :
       {std::tuple{"kernel_driver", "gpus", "bus_id"}, std::tuple{"nvml", "gpus", "pci_bus_id"},
        std::tuple{"driver_api", "devices", "pci_bus_id"}}) {
    const Json& gpus = rules::value_at(report, std::string(layer) + "." + list);
    if (!gpus.is_array()) continue;
    for (const auto& g : gpus) {
      if (g.is_object() && bus_key(text_of(g.value(key, Json()))) == bus_key(bus)) {
        auto uuid = text_of(g.value("uuid", Json()));
        if (!uuid.empty()) return uuid;
      }
    }
  }
  return "";
}

// The newest CUDA variant among the knowledge base's PyTorch releases that
// `cuda` still covers by backward compatibility: 12.2 -> cu121.
std::optional<Version> newest_torch_variant(const kb::KnowledgeBase& kb, const Version& cuda) {
  const Json& table = kb.raw("framework_matrix");
  if (!table.is_object() || !table.contains("entries")) return std::nullopt;
  std::optional<Version> best;
  for (const auto& e : table["entries"]) {
    if (e.value("framework", "") != "torch" || !e.contains("cuda_variants")) continue;
    for (const auto& c : e["cuda_variants"]) {
      auto v = c.is_string() ? Version::parse(c.get<std::string>()) : std::nullopt;
      if (v && *v <= cuda && (!best || *v > *best)) best = v;
    }
  }
  return best;
}

std::optional<long> unix_time(const std::string& iso) {
  std::tm tm{};
  const char* end = ::strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return static_cast<long>(::timegm(&tm));
}

}  // namespace

bool is_fleet_format(std::string_view format) { return format == "prometheus" || format == "nfd"; }

Json fleet_view(const Json& report, const kb::KnowledgeBase& kb) {
  Json out = Json::object();
  Json stack = Json::object();
  auto s = read_stack(report, kb);
  for (const auto& v : s.values) {
    // GPUs and the kernel test have metrics of their own; the toolkit is not what programs load.
    if (v.key.starts_with("gpu.") || v.key == "kernel_test" || v.values.empty()) continue;
    stack[stack_label(v.key)] = join(v.values);
  }
  out["stack"] = stack;

  Json gpus = Json::array();
  int index = 0;
  for (const auto& g : rules::gpus(report, kb)) {
    Json j = {{"index", index++}, {"name", g.name}};
    if (g.cc) j["compute_capability"] = g.cc->text();
    if (g.arch != nullptr) {
      j["sm"] = g.arch->sm;
      j["architecture"] = g.arch->name;
    } else if (g.cc) {
      j["sm"] = fmt::format("sm_{}{}", g.cc->major(), g.cc->minor());
    }
    if (!g.bus_id.empty()) j["bus_id"] = g.bus_id;
    auto uuid = uuid_for(report, g.bus_id);
    if (!uuid.empty()) j["uuid"] = uuid;
    gpus.push_back(j);
  }
  out["gpus"] = gpus;

  auto driver = rules::host_driver(report, kb);
  if (driver.cuda) {
    auto newest = Version::parse(fmt::format("{}.{}", driver.cuda->major(), driver.cuda->minor()));
    out["newest_cuda_runtime"] = newest->text();
    if (auto t = newest_torch_variant(kb, *newest)) out["torch_cuda_variant"] = t->cuda_tag();
  }
  if (auto kt = kernel_test_passed(report)) out["kernel_test"] = *kt;
  // A saved report given to `analyze` may carry anything there.
  const Json& at = rules::value_at(report, "collected_at");
  if (auto t = at.is_string() ? unix_time(at.get<std::string>()) : std::nullopt)
    out["collected_at_unix"] = *t;
  const Json& total = rules::value_at(report, "timings.total_ms");
  if (total.is_number()) out["collect_seconds"] = total.get<double>() / 1000.0;
  return out;
}

void add_fleet_view_for(Json& report, std::string_view format, const kb::KnowledgeBase& kb) {
  if (is_fleet_format(format) && report.is_object()) report["fleet"] = fleet_view(report, kb);
}

}  // namespace cudiag::workflow
