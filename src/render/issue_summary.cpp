#include "render/issue_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <utility>

#include "core/fact.h"
#include "core/text_wrap.h"
#include "model/derived.h"
#include "model/frameworks_view.h"
#include "model/layers.h"
#include "model/report_path.h"
#include "render/text_summary.h"

namespace cudiag::render {

namespace {

bool is_fact(const Json& j) { return j.is_object() && j.contains("value") && j.contains("source"); }

// The text of the fact at a dotted path, "" when missing or unknown.
std::string fact_text(const Json& report, const std::string& path) {
  return display_text(fact_value(model::fact_at(report, path)));
}

// The first of `keys` in `obj` with a non-empty value (a fact or a plain value).
std::string field_text(const Json& obj, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    if (!obj.contains(k)) continue;
    const Json& v = is_fact(obj[k]) ? obj[k]["value"] : obj[k];
    if (v.is_object() || v.is_array()) continue;
    auto text = display_text(v);
    if (!text.empty()) return text;
  }
  return "";
}

std::string os_line(const Json& r) {
  std::vector<std::string> parts;
  auto os = fact_text(r, "host.os.pretty_name");
  parts.push_back(os.empty() ? "unknown OS" : os);
  if (auto k = fact_text(r, "host.kernel_release"); !k.empty()) parts.push_back("kernel " + k);
  parts.push_back(fact_text(r, "host.architecture"));
  if (auto g = fact_text(r, "host.glibc"); !g.empty()) parts.push_back("glibc " + g);
  if (fact_value(model::fact_at(r, "host.wsl.detected")) == true) parts.push_back("WSL2");
  return join_nonempty(parts, " · ");
}

// GPU names with counts, from the most specific layer that has them.
std::string gpu_line(const Json& r) {
  std::vector<std::pair<std::string, int>> counts;
  auto add = [&counts](std::string name) {
    if (name.empty()) return;
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == name; });
    if (it == counts.end()) {
      counts.emplace_back(std::move(name), 1);
    } else {
      ++it->second;
    }
  };
  auto from_list = [&](const Json& list, std::initializer_list<const char*> keys) {
    if (!list.is_array()) return;
    for (const auto& g : list) {
      if (g.is_object()) add(field_text(g, keys));
    }
  };
  if (r.contains("nvml")) from_list(r["nvml"].value("gpus", Json::array()), {"name"});
  if (counts.empty() && r.contains("driver_api"))
    from_list(r["driver_api"].value("devices", Json::array()), {"name"});
  if (counts.empty() && r.contains("kernel_driver"))
    from_list(r["kernel_driver"].value("gpus", Json::array()), {"model"});
  if (counts.empty() && r.contains("kernel_driver")) {
    for (const auto& d : r["kernel_driver"].value("pci_devices", Json::array())) {
      if (d.is_object() && d.value("kind", "") == "gpu")
        add(fmt::format("NVIDIA GPU [10de:{}]", field_text(d, {"device_id"})));
    }
  }
  if (counts.empty()) return "no NVIDIA GPU found";
  std::vector<std::string> parts;
  for (const auto& [name, n] : counts) parts.push_back(n > 1 ? fmt::format("{} ×{}", name, n) : name);
  return join_nonempty(parts, ", ");
}

// The host driver as the rules saw it (the report model's derived view): the
// kernel module, the user-space libcuda when it differs or stands alone, a
// forward-compat libcuda, and the CUDA version the driver supports.
std::string host_driver_line(const Json& r) {
  auto d = model::host_driver_of(r);
  auto text = [](const std::optional<Version>& v) { return v ? v->text() : std::string(); };
  std::string supports = d.cuda ? "supports CUDA " + d.cuda->text() : "";
  if (d.cuda && d.cuda_fact.empty()) supports += " (knowledge base)";
  std::string libcuda = text(d.user_space);
  std::string libcuda_kind = d.forward_compat ? "forward-compat libcuda " : "user-space libcuda ";
  if (!d.kernel_module) {
    // Only the user-space driver answered; say so rather than credit a driver that is not loaded.
    if (libcuda.empty()) {
      if (d.nvml)
        return join_nonempty({"no NVIDIA kernel module loaded", "NVML " + d.nvml->text(), supports}, " · ");
      return "no NVIDIA kernel module loaded";
    }
    return fmt::format("no NVIDIA kernel module loaded · {}{}{}", libcuda_kind, libcuda,
                       supports.empty() ? "" : " (" + supports + ")");
  }
  std::vector<std::string> parts = {"kernel module " + d.kernel_module->text(), supports};
  if (!libcuda.empty() && (d.forward_compat || *d.user_space != *d.kernel_module))
    parts.push_back(libcuda_kind + libcuda);
  return join_nonempty(parts, " · ");
}

std::string container_line(const Json& r) {
  auto kind = fact_text(r, "host.container.kind");
  const Json& c = r.contains("container") && r["container"].is_object() ? r["container"] : Json::object();
  std::vector<std::string> parts;
  auto image = c.empty() ? "" : fact_text(r, "container.image");
  if (!image.empty()) {
    parts.push_back(image);
  } else if (!kind.empty()) {
    parts.push_back(fmt::format("{} container, image not identified", kind));
  }
  if (!c.empty()) {
    if (auto cuda = fact_text(r, "container.cuda_version");
        !cuda.empty() && image.find(cuda) == std::string::npos) {
      parts.push_back("CUDA " + cuda);
    }
    if (!parts.empty()) parts.push_back(fact_text(r, "container.os.pretty_name"));
    if (auto digest = fact_text(r, "container.image_digest"); !digest.empty())
      parts.push_back("digest " + digest);
  }
  if (parts.empty()) return "not in a container";
  return join_nonempty(parts, " · ");
}

// Each framework install the report model reads from the frameworks layer, once per distinct line.
std::string frameworks_line(const Json& r) {
  std::vector<std::string> found;
  for (const auto& b : model::framework_builds(r)) {
    auto cuda = b.cuda.empty() ? b.cuda_major : b.cuda;
    auto text = fmt::format("{} {}{}{}", b.name, b.version,
                            !cuda.empty() ? " built for CUDA " + cuda
                            : b.cpu_only  ? " CPU-only"
                                          : "",
                            b.environment.empty() ? "" : " (" + b.environment + ")");
    if (std::find(found.begin(), found.end(), text) == found.end()) found.push_back(text);
  }
  return found.empty() ? "none found" : join_nonempty(found, " · ");
}

std::string runtimes_line(const Json& r) {
  std::vector<std::string> parts;
  const Json& cr = r["cuda_runtime"];
  for (const auto& rt : cr.value("runtimes", Json::array())) {
    if (!rt.is_object()) continue;
    auto v = field_text(rt, {"runtime_version", "file_version"});
    parts.push_back(
        fmt::format("libcudart {} ({})", v.empty() ? "?" : v, field_text(rt, {"real_path", "path"})));
  }
  for (const auto& tk : cr.value("toolkits", Json::array())) {
    if (!tk.is_object()) continue;
    parts.push_back(
        fmt::format("toolkit {} at {}", field_text(tk, {"version"}), field_text(tk, {"real_path", "path"})));
  }
  return parts.empty() ? "none found" : join_nonempty(parts, " · ");
}

void flatten(const Json& j, const std::string& path, std::vector<FactLine>& out, std::size_t limit,
             bool& truncated) {
  if (out.size() >= limit) {
    truncated = true;
    return;
  }
  if (is_fact(j)) {
    auto value = display_text(j["value"]);
    if (j["value"].is_null()) value = "unknown";
    if (j.contains("code")) value += fmt::format(" (code {})", display_text(j["code"]));
    if (j.contains("error")) value += " — " + display_text(j["error"]);
    out.push_back({path, value, display_text(j["source"])});
    return;
  }
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten(v, path + "." + k, out, limit, truncated);
    return;
  }
  if (j.is_array()) {
    bool scalars =
        std::all_of(j.begin(), j.end(), [](const Json& e) { return !e.is_object() && !e.is_array(); });
    if (scalars) {
      std::vector<std::string> parts;
      for (const auto& e : j) parts.push_back(display_text(e));
      out.push_back({path, parts.empty() ? "(none)" : join_nonempty(parts, ", "), ""});
      return;
    }
    for (std::size_t i = 0; i < j.size(); ++i)
      flatten(j[i], fmt::format("{}[{}]", path, i), out, limit, truncated);
    return;
  }
  out.push_back({path, display_text(j), ""});
}

}  // namespace

std::string display_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string evidence_text(const Json& v) { return v.is_null() ? "null" : display_text(v); }

std::vector<SummaryItem> issue_summary(const Json& report) {
  std::vector<SummaryItem> items;
  items.push_back({"OS", os_line(report)});
  items.push_back({"GPU", gpu_line(report)});
  items.push_back({"Host driver", host_driver_line(report)});
  items.push_back({"Container image", container_line(report)});
  if (report.contains("frameworks")) items.push_back({"Frameworks", frameworks_line(report)});
  if (report.contains("cuda_runtime")) items.push_back({"CUDA runtime", runtimes_line(report)});
  return items;
}

std::vector<LayerView> layer_views(const Json& report) {
  std::vector<std::string> names = model::layer_order();
  for (const auto& f : report.value("findings", Json::array())) {
    auto layer = f.is_object() ? f.value("layer", "") : "";
    if (!layer.empty() && std::find(names.begin(), names.end(), layer) == names.end()) names.push_back(layer);
  }
  std::string first = report.contains("first_failing_layer") && report["first_failing_layer"].is_string()
                          ? report["first_failing_layer"].get<std::string>()
                          : "";
  const Json& status = report.contains("layer_status") && report["layer_status"].is_object()
                           ? report["layer_status"]
                           : Json::object();
  auto summaries = layer_summaries(report);
  std::vector<LayerView> views;
  for (const auto& name : names) {
    LayerView v;
    v.name = name;
    v.status = report.contains(name) && status.contains(name) && status[name].is_string()
                   ? status[name].get<std::string>()
                   : "unknown";
    v.first_failing = name == first;
    for (const auto& s : summaries) {
      if (s.name == name) v.summary = s.lines;
    }
    views.push_back(std::move(v));
  }
  return views;
}

std::vector<FactLine> layer_facts(const Json& report, const std::string& layer, std::size_t limit,
                                  bool& truncated) {
  std::vector<FactLine> out;
  truncated = false;
  if (report.contains(layer)) flatten(report[layer], layer, out, limit, truncated);
  return out;
}

}  // namespace cudiag::render
