#include "render/text_summary.h"

#include <fmt/format.h>

#include "core/fact.h"
#include "model/kernel_test_view.h"
#include "model/report_path.h"

namespace cudiag::render {

namespace {

// The value of the fact at `path` as text, or `fallback`.
std::string val(const Json& report, const std::string& path, const std::string& fallback = "unknown") {
  const Json& f = model::fact_at(report, path);
  const Json& v = fact_value(f);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return json_text(v, -1);
  return fallback;
}

// "CUDA_ERROR_NO_DEVICE (100)" for a result fact.
std::string result_text(const Json& report, const std::string& path) {
  const Json& f = model::fact_at(report, path);
  if (!f.is_object()) return "not called";
  if (f.contains("code")) {
    std::string name = f["value"].is_string() ? f["value"].get<std::string>() : "code";
    return fmt::format("{} ({})", name, f["code"].get<long>());
  }
  if (f.contains("error")) return f["error"].get<std::string>();
  return "unknown";
}

std::vector<std::string> host_lines(const Json& r) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("{} · kernel {} · {} · glibc {}", val(r, "host.os.pretty_name"),
                              val(r, "host.kernel_release"), val(r, "host.architecture"),
                              val(r, "host.glibc")));
  std::string container = val(r, "host.container.kind", "");
  if (!container.empty()) {
    bool nv = fact_value(model::fact_at(r, "host.container.nvidia_runtime")) == true;
    lines.push_back(
        fmt::format("in a {} container{}", container, nv ? " with NVIDIA driver files mounted" : ""));
  }
  if (fact_value(model::fact_at(r, "host.wsl.detected")) == true) lines.push_back("WSL2");
  return lines;
}

std::vector<std::string> kernel_lines(const Json& r) {
  std::vector<std::string> lines;
  const Json& kd = r["kernel_driver"];
  std::size_t gpus = 0;
  for (const auto& d : kd.value("pci_devices", Json::array())) {
    if (d.value("kind", "") == "gpu") ++gpus;
  }
  std::string module = val(r, "kernel_driver.version", "");
  bool loaded = fact_value(model::fact_at(r, "kernel_driver.modules.nvidia")) == true;
  if (!module.empty()) {
    lines.push_back(fmt::format(
        "NVIDIA kernel module {}{}", module,
        fact_value(model::fact_at(r, "kernel_driver.open_kernel_module")) == true ? " (open)" : ""));
  } else if (!kd.contains("version") && !model::fact_at(r, "kernel_driver.modules.nvidia").is_object()) {
    lines.push_back("NVIDIA kernel module: unknown (not collected)");
  } else {
    lines.push_back(loaded ? "nvidia module listed but /proc/driver/nvidia/version is unreadable"
                           : "no NVIDIA kernel module loaded");
  }
  if (fact_value(model::fact_at(r, "kernel_driver.modules.nouveau")) == true)
    lines.push_back("nouveau is loaded");
  // Without a PCI scan (--no-collect, a partial report) the count is unknown, not zero.
  if (kd.contains("pci_devices") && kd["pci_devices"].is_array())
    lines.push_back(fmt::format("{} NVIDIA GPU{} on the PCI bus", gpus, gpus == 1 ? "" : "s"));
  else
    lines.push_back("NVIDIA GPUs on the PCI bus: unknown (not collected)");
  std::size_t nodes = 0;
  std::size_t usable = 0;
  for (const auto& n : kd.value("device_nodes", Json::array())) {
    if (n.value("exists", false)) ++nodes;
    if (n.value("accessible", false)) ++usable;
  }
  if (nodes > 0)
    lines.push_back(fmt::format("{} device node{}, {} accessible", nodes, nodes == 1 ? "" : "s", usable));
  return lines;
}

std::vector<std::string> nvml_lines(const Json& r) {
  if (!r["nvml"].contains("picked") || fact_value(r["nvml"]["picked"]).is_null())
    return {"no libnvidia-ml.so.1 found"};
  std::vector<std::string> lines;
  lines.push_back(fmt::format("libnvidia-ml {} · nvmlInit_v2 → {}", val(r, "nvml.library_version"),
                              result_text(r, "nvml.nvmlInit")));
  std::string driver = val(r, "nvml.driver_version", "");
  if (!driver.empty())
    lines.push_back(fmt::format("driver {} · CUDA {} · {} GPU(s)", driver, val(r, "nvml.cuda_driver_version"),
                                val(r, "nvml.device_count")));
  return lines;
}

std::vector<std::string> driver_api_lines(const Json& r) {
  if (fact_value(model::fact_at(r, "driver_api.picked")).is_null()) return {"no libcuda.so.1 found"};
  std::vector<std::string> lines;
  lines.push_back(
      fmt::format("libcuda {} ({})", val(r, "driver_api.library_version"), val(r, "driver_api.picked")));
  lines.push_back(fmt::format("supports CUDA {} · cuInit → {}", val(r, "driver_api.cuda_driver_version"),
                              result_text(r, "driver_api.cuInit")));
  if (fact_value(model::fact_at(r, "driver_api.forward_compat_package")) == true)
    lines.push_back("from a forward-compatibility package");
  std::size_t n = r["driver_api"].value("candidates", Json::array()).size();
  if (n > 1) lines.push_back(fmt::format("{} libcuda copies visible", n));
  return lines;
}

std::vector<std::string> runtime_lines(const Json& r) {
  std::vector<std::string> lines;
  for (const auto& rt : r["cuda_runtime"].value("runtimes", Json::array())) {
    std::string v = fact_value(rt.value("runtime_version", Json())).is_string()
                        ? fact_value(rt["runtime_version"]).get<std::string>()
                    : rt.value("file_version", Json("?")).is_string() ? rt["file_version"].get<std::string>()
                                                                      : "?";
    std::string count = "not called";
    if (rt.contains("cudaGetDeviceCount")) {
      const auto& f = rt["cudaGetDeviceCount"];
      count = f.contains("code")
                  ? fmt::format("{} ({})", f["value"].is_string() ? f["value"].get<std::string>() : "code",
                                f["code"].get<long>())
                  : "unknown";
    } else if (rt.contains("load") && rt["load"].contains("error")) {
      count = rt["load"]["error"].get<std::string>();
    }
    lines.push_back(
        fmt::format("libcudart {} {} · cudaGetDeviceCount → {}", v, rt.value("real_path", ""), count));
  }
  for (const auto& tk : r["cuda_runtime"].value("toolkits", Json::array())) {
    lines.push_back(fmt::format("toolkit {} at {} · nvcc {}", val(tk, "version"), tk.value("real_path", ""),
                                val(tk, "nvcc", "none")));
  }
  if (lines.empty()) lines.push_back("no libcudart and no toolkit found");
  return lines;
}

std::vector<std::string> library_lines(const Json& r) {
  std::vector<std::string> found;
  for (const auto& [key, lib] : r["libraries"].items()) {
    const auto& versions = lib.value("distinct_versions", Json::array());
    if (lib.value("instances", Json::array()).empty()) continue;
    std::string v;
    for (const auto& x : versions) v += (v.empty() ? "" : "/") + x.get<std::string>();
    found.push_back(fmt::format("{} {}", lib.value("name", key), v.empty() ? "?" : v));
  }
  if (found.empty()) return {"no CUDA libraries found"};
  std::vector<std::string> lines;
  std::string line;
  for (const auto& f : found) {
    if (!line.empty() && line.size() + f.size() + 3 > 60) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " · ") + f;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// The kernel test's outcome: each part's first failed step, or what passed.
std::vector<std::string> kernel_test_lines(const Json& r) {
  auto view = model::kernel_test_view(r);
  if (view.status == "not run") return {"not run: " + view.reason};
  std::vector<std::string> lines;
  for (const auto& f : view.failures) {
    lines.push_back(f.part == "framework" ? fmt::format("{}: the GPU matmul failed", f.section)
                                          : fmt::format("{} failed at {}", f.section, f.step));
  }
  if (view.status == "pass") {
    lines.push_back(fmt::format("a real kernel ran and was checked element by element on {} device{}",
                                view.devices_passed, view.devices_passed == 1 ? "" : "s"));
  } else if (lines.empty()) {
    lines.push_back(view.status.empty() ? "status unknown" : "failed");
  }
  return lines;
}

}  // namespace

std::vector<LayerSummary> layer_summaries(const Json& report) {
  std::vector<LayerSummary> out;
  auto add = [&](const char* name, auto fn) {
    LayerSummary s{name, {}};
    if (report.contains(name) && report[name].is_object()) {
      for (auto& line : fn(report)) s.lines.push_back({std::move(line), 0, ""});
    }
    out.push_back(std::move(s));
  };
  add("host", host_lines);
  add("kernel_driver", kernel_lines);
  add("nvml", nvml_lines);
  add("driver_api", driver_api_lines);
  add("cuda_runtime", runtime_lines);
  add("libraries", library_lines);
  LayerSummary fw{"frameworks", {}};
  if (report.contains("frameworks") && report["frameworks"].is_object())
    fw.lines = framework_summary_lines(report);
  out.push_back(std::move(fw));
  // Only a report with a kernel test shows the layer (it runs with check --deep alone).
  if (report.contains("kernel_test")) add("kernel_test", kernel_test_lines);
  return out;
}

}  // namespace cudiag::render
