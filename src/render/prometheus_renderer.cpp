// `--format prometheus`: the report as a node_exporter textfile-collector file
// (Prometheus text exposition format 0.0.4). No sample has a timestamp (the
// collector skips a whole file with one), every metric has HELP and TYPE once,
// info metrics are gauges with value 1 (node_exporter rejects the OpenMetrics
// `info` type), and no two samples share a label set (a duplicate is a gather
// error). The stack and GPU facts come from the report's `fleet` key
// (workflow/fleet_view.h). docs/fleet.md is the metric reference.
#include <fmt/format.h>

#include <deque>
#include <map>
#include <set>

#include "render/issue_summary.h"
#include "render/render.h"
#include "render/text_escape.h"

namespace cudiag::render {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// Label values escape \, " and newline; HELP text escapes \ and newline.
std::string escape(std::string_view s, bool quote) {
  std::string out;
  for (char c : valid_utf8(s)) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote) {
      out += "\\\"";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

struct Family {
  std::string name, help;
  std::vector<std::string> samples;
  std::set<std::string> seen;  // label sets already written

  void add(const Labels& labels, double value) {
    std::string set;
    for (const auto& [k, v] : labels) {
      if (v.empty()) continue;  // an empty label is no label to Prometheus
      set += fmt::format("{}{}=\"{}\"", set.empty() ? "" : ",", k, escape(v, true));
    }
    if (!seen.insert(set).second) return;
    samples.push_back(fmt::format("{}{} {}", name, set.empty() ? "" : "{" + set + "}", value));
  }
  std::string text() const {
    if (samples.empty()) return "";
    std::string out = fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, escape(help, false), name);
    for (const auto& s : samples) out += s + "\n";
    return out;
  }
};

std::string str(const Json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && obj[key].is_string() ? obj[key].get<std::string>() : "";
}

int status_value(const std::string& status) {
  if (status == "ok") return 0;
  if (status == "warning") return 1;
  if (status == "error") return 2;
  return 3;
}

std::string render_prometheus(const Json& report, const RenderOptions&) {
  const Json& fleet =
      report.contains("fleet") && report["fleet"].is_object() ? report["fleet"] : Json::object();
  std::deque<Family> out;  // deque: references stay valid as families are added
  auto family = [&out](std::string name, std::string help) -> Family& {
    out.push_back(Family{std::move(name), std::move(help), {}, {}});
    return out.back();
  };

  const Json& tool = report.contains("tool") ? report["tool"] : Json::object();
  family("cudiag_build_info",
         "A metric with a constant '1' value labeled by the version and commit of the cudiag that wrote this "
         "file.")
      .add({{"version", str(tool, "version")}, {"commit", str(tool, "git_commit")}}, 1);

  auto& layers =
      family("cudiag_layer_status",
             "Status of each diagnosis layer: 0 ok, 1 warning, 2 error, 3 unknown (not collected).");
  for (const auto& v : layer_views(report)) layers.add({{"layer", v.name}}, status_value(v.status));

  auto& first =
      family("cudiag_first_failing_layer_info",
             "A metric with a constant '1' value labeled by the first layer with an error finding.");
  if (!str(report, "first_failing_layer").empty())
    first.add({{"layer", str(report, "first_failing_layer")}}, 1);

  auto& findings = family("cudiag_finding", "One series with value 1 per finding of the diagnosis.");
  std::map<std::string, int> by_severity{{"error", 0}, {"warning", 0}, {"info", 0}};
  for (const auto& f : report.value("findings", Json::array())) {
    if (!f.is_object()) continue;
    findings.add({{"id", str(f, "id")}, {"layer", str(f, "layer")}, {"severity", str(f, "severity")}}, 1);
    ++by_severity[str(f, "severity")];
  }
  auto& counts = family("cudiag_findings", "Number of findings of the diagnosis by severity.");
  for (const auto& [severity, n] : by_severity) counts.add({{"severity", severity}}, n);

  if (fleet.contains("stack") && fleet["stack"].is_object()) {
    Labels labels;
    for (const auto& [k, v] : fleet["stack"].items())
      labels.emplace_back(k, v.is_string() ? v.get<std::string>() : "");
    family("cudiag_stack_info",
           "A metric with a constant '1' value labeled by the versions of the node's NVIDIA stack "
           "(several values of one component are joined with commas).")
        .add(labels, 1);
  }
  if (fleet.contains("gpus") && fleet["gpus"].is_array()) {
    auto& gpu = family("cudiag_gpu_info",
                       "A metric with a constant '1' value labeled by each NVIDIA GPU the report saw.");
    for (const auto& g : fleet["gpus"]) {
      gpu.add({{"index", g.is_object() && g.contains("index") && g["index"].is_number_integer()
                             ? std::to_string(g["index"].get<int>())
                             : ""},
               {"name", str(g, "name")},
               {"compute_capability", str(g, "compute_capability")},
               {"sm", str(g, "sm")},
               {"architecture", str(g, "architecture")},
               {"pci_bus_id", str(g, "bus_id")},
               {"uuid", str(g, "uuid")}},
              1);
    }
    family("cudiag_gpus", "Number of NVIDIA GPUs the report saw (PCI, NVML or the driver API).")
        .add({}, static_cast<double>(fleet["gpus"].size()));
  }
  if (fleet.contains("kernel_test") && fleet["kernel_test"].is_boolean()) {
    family("cudiag_kernel_test_success",
           "1 when the real kernel test (check --deep) passed, 0 when it failed.")
        .add({}, fleet["kernel_test"].get<bool>() ? 1 : 0);
  }
  if (fleet.contains("collect_seconds") && fleet["collect_seconds"].is_number()) {
    family("cudiag_collect_duration_seconds", "Time cudiag took to collect the report.")
        .add({}, fleet["collect_seconds"].get<double>());
  }
  if (fleet.contains("collected_at_unix") && fleet["collected_at_unix"].is_number()) {
    family("cudiag_last_run_timestamp_seconds", "Unix time at which the report was collected.")
        .add({}, fleet["collected_at_unix"].get<double>());
  }

  std::string text;
  for (const auto& f : out) text += f.text();
  return text;
}

const RegisterRenderer kPrometheus{"prometheus", render_prometheus};

}  // namespace
}  // namespace cudiag::render
