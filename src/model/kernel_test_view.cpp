#include "model/kernel_test_view.h"

#include <fmt/format.h>

namespace cudiag::model {

namespace {

std::string text(const Json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && obj[key].is_string() ? obj[key].get<std::string>() : "";
}

const Json& array_in(const Json& obj, const char* key) {
  static const Json empty = Json::array();
  return obj.is_object() && obj.contains(key) && obj[key].is_array() ? obj[key] : empty;
}

void first_failed_step(std::vector<KernelTestFailure>& out, const std::string& part,
                       const std::string& section, const Json& steps, const std::string& base) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (text(steps[i], "status") != "failed") continue;
    out.push_back({part, section, text(steps[i], "name"), text(steps[i], "message"),
                   fmt::format("{}.steps[{}]", base, i)});
    return;
  }
}

}  // namespace

KernelTestView kernel_test_view(const Json& report) {
  KernelTestView v;
  if (!report.is_object() || !report.contains("kernel_test") || !report["kernel_test"].is_object()) return v;
  const Json& kt = report["kernel_test"];
  v.present = true;
  v.status = text(kt, "status");
  v.reason = text(kt, "reason");
  const Json& driver = kt.contains("driver") ? kt["driver"] : Json::object();
  first_failed_step(v.failures, "driver", "driver", array_in(driver, "steps"), "kernel_test.driver");
  const Json& devices = array_in(driver, "devices");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const Json& d = devices[i];
    int ordinal = d.is_object() && d.contains("ordinal") && d["ordinal"].is_number_integer()
                      ? d["ordinal"].get<int>()
                      : static_cast<int>(i);
    if (text(d, "status") == "pass") ++v.devices_passed;
    first_failed_step(v.failures, "device", fmt::format("device {}", ordinal), array_in(d, "steps"),
                      fmt::format("kernel_test.driver.devices[{}]", i));
  }
  const Json& nvrtc = array_in(kt, "nvrtc");
  for (std::size_t i = 0; i < nvrtc.size(); ++i) {
    first_failed_step(v.failures, "nvrtc", "nvrtc " + text(nvrtc[i], "library"), array_in(nvrtc[i], "steps"),
                      fmt::format("kernel_test.nvrtc[{}]", i));
  }
  const Json& frameworks = array_in(kt, "frameworks");
  for (std::size_t i = 0; i < frameworks.size(); ++i) {
    const Json& f = frameworks[i];
    if (text(f, "status") != "fail") continue;
    auto error = text(f, "error");
    auto name = text(f, "framework");
    v.failures.push_back({"framework", fmt::format("{} ({})", name, text(f, "python")), name,
                          error.empty() ? "failed" : error.substr(0, error.find('\n')),
                          fmt::format("kernel_test.frameworks[{}]", i)});
  }
  return v;
}

}  // namespace cudiag::model
