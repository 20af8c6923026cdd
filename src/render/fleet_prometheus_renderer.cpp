// `cudiag fleet --format prometheus`: fleet-level gauges in the text
// exposition format 0.0.4 for node_exporter's textfile collector (no
// timestamps, no OpenMetrics types; see shared/reference/fleet.md §1.2). Per
// node metrics come from each node's own `cudiag report --format prometheus`;
// these are the fleet's totals, one series per stack group and per finding.
#include <fmt/format.h>

#include "render/fleet_render.h"

namespace cudiag::render {

using workflow::fleet::FleetResult;

namespace {

std::string label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void metric(std::string& out, const char* name, const char* help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, help, name);
}

std::string stack_value(const workflow::Stack& s, const std::string& key) {
  const auto* v = s.find(key);
  return v ? label(workflow::fleet::value_text(*v)) : "";
}

}  // namespace

std::string render_fleet_prometheus(const FleetResult& r) {
  std::string out;
  metric(out, "cudiag_fleet_files", "Files cudiag fleet tried to read.");
  out += fmt::format("cudiag_fleet_files {}\n", r.files);
  metric(out, "cudiag_fleet_reports", "Reports cudiag fleet read.");
  out += fmt::format("cudiag_fleet_reports {}\n", r.reports);
  metric(out, "cudiag_fleet_unreadable_files", "Files that were not readable cudiag reports.");
  out += fmt::format("cudiag_fleet_unreadable_files {}\n", r.unreadable.size());
  metric(out, "cudiag_fleet_stacks", "Distinct compatibility-deciding stacks in the fleet.");
  out += fmt::format("cudiag_fleet_stacks {}\n", r.groups.size());
  metric(out, "cudiag_fleet_error_nodes", "Nodes with at least one error finding.");
  out += fmt::format("cudiag_fleet_error_nodes {}\n", r.error_nodes());
  metric(out, "cudiag_fleet_stack_nodes", "Nodes per stack group (group 1 is the majority).");
  for (std::size_t i = 0; i < r.groups.size(); ++i) {
    const auto& s = r.groups[i].stack;
    out += fmt::format(
        "cudiag_fleet_stack_nodes{{group=\"{}\",majority=\"{}\",driver_version=\"{}\",cuda_driver_version=\"{"
        "}\","
        "cuda_runtime=\"{}\",gpu_name=\"{}\",differences=\"{}\"}} {}\n",
        i + 1, i == 0 ? "true" : "false", stack_value(s, "driver"), stack_value(s, "driver.cuda"),
        stack_value(s, "cuda_runtime"), stack_value(s, "gpu.name"), r.groups[i].differs.size(),
        r.groups[i].members.size());
  }
  if (!r.findings.empty()) {
    metric(out, "cudiag_fleet_finding_nodes", "Nodes on which each finding was given.");
    for (const auto& f : r.findings) {
      out += fmt::format("cudiag_fleet_finding_nodes{{id=\"{}\",severity=\"{}\",layer=\"{}\"}} {}\n",
                         label(f.id), label(f.severity), label(f.layer), f.members.size());
    }
  }
  if (!r.first_failing.empty()) {
    metric(out, "cudiag_fleet_first_failing_layer_nodes", "Nodes whose first failing layer is each layer.");
    for (const auto& l : r.first_failing)
      out += fmt::format("cudiag_fleet_first_failing_layer_nodes{{layer=\"{}\"}} {}\n", label(l.layer),
                         l.members.size());
  }
  if (r.lock_checked) {
    metric(out, "cudiag_fleet_drifted_nodes", "Nodes that violate the lock file.");
    out += fmt::format("cudiag_fleet_drifted_nodes {}\n", r.drifted.size());
  }
  metric(out, "cudiag_fleet_scan_duration_seconds", "How long cudiag fleet took to read and aggregate.");
  out += fmt::format("cudiag_fleet_scan_duration_seconds {:.3f}\n", r.seconds);
  return out;
}

}  // namespace cudiag::render
