#include "probes/container_toolkit_probe.h"

#include <sstream>

#include "core/fact.h"
#include "machine/text_util.h"

namespace cudiag::probes {

namespace {

constexpr const char* kConfig = "/etc/nvidia-container-runtime/config.toml";
constexpr const char* kDpkgStatus = "/var/lib/dpkg/status";

std::string strip(std::string s) {
  auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// `mode = "..."` in the [nvidia-container-runtime] table; a commented-out
// line leaves the default, "auto" (api/config/v1/config.go).
Json mode_fact(const FsRoot& root) {
  auto data = root.read_file(kConfig);
  if (!data)
    return unknown_fact(file_source(kConfig), "not readable (no NVIDIA Container Toolkit, or not the host)");
  std::istringstream in(*data.data);
  std::string line;
  std::string table;
  while (std::getline(in, line)) {
    line = strip(line);
    if (line.starts_with("[")) {
      table = line;
      continue;
    }
    if (table != "[nvidia-container-runtime]" || !line.starts_with("mode")) continue;
    auto eq = line.find('=');
    if (eq == std::string::npos || strip(line.substr(4, eq - 4)) != "") continue;
    auto value = strip(line.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"') value = value.substr(1, value.find('"', 1) - 1);
    return fact(machine::sanitize(value), file_source(kConfig));
  }
  return fact("auto", file_source(kConfig));
}

Json version_fact(const FsRoot& root) {
  auto data = root.read_file(kDpkgStatus, 64u << 20);
  if (!data) return unknown_fact(file_source(kDpkgStatus), "not readable");
  std::istringstream in(*data.data);
  std::string line;
  bool in_package = false;
  while (std::getline(in, line)) {
    if (line.starts_with("Package: ")) in_package = strip(line.substr(9)) == "nvidia-container-toolkit";
    if (in_package && line.starts_with("Version: ")) {
      auto v = strip(line.substr(9));
      v = v.substr(0, v.find_first_of("-~"));  // 1.18.0-1 -> 1.18.0
      return fact(machine::sanitize(v), file_source(kDpkgStatus));
    }
  }
  return unknown_fact(file_source(kDpkgStatus), "no nvidia-container-toolkit package installed");
}

}  // namespace

Json probe_container_toolkit(const FsRoot& root) {
  Json t = Json::object();
  t["mode"] = mode_fact(root);
  t["version"] = version_fact(root);
  return t;
}

}  // namespace cudiag::probes
