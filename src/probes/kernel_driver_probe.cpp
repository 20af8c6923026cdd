#include "probes/kernel_driver_probe.h"

#include <fmt/format.h>

#include "core/fact.h"
#include "core/version.h"
#include "machine/text_util.h"
#include "probes/probe_registry.h"

namespace cudiag::probes {

namespace {

constexpr const char* kModules[] = {"nvidia",         "nvidia_uvm",     "nvidia_drm",
                                    "nvidia_modeset", "nvidia_peermem", "nouveau"};

Json probe_modules(const FsRoot& root) {
  Json mods = Json::object();
  auto data = root.read_file("/proc/modules");
  auto src = file_source("/proc/modules");
  if (!data) {
    for (const char* m : kModules) mods[m] = unknown_fact(src, data.error);
    return mods;
  }
  std::map<std::string, bool> loaded;
  for (auto line : machine::split_lines(*data.data)) {
    auto name = line.substr(0, line.find(' '));
    loaded[std::string(name)] = true;
  }
  for (const char* m : kModules) mods[m] = fact(loaded.count(m) > 0, src);
  return mods;
}

// Module files installed for each kernel, so "built for another kernel" is visible.
Json probe_module_files(const FsRoot& root) {
  Json files = Json::array();
  for (const auto& release : root.list_dir("/lib/modules")) {
    for (const char* sub : {"updates/dkms", "kernel/drivers/video", "extra", "misc", "updates",
                            "kernel/drivers/gpu/drm/nouveau"}) {
      auto dir = fmt::format("/lib/modules/{}/{}", release, sub);
      for (const auto& name : root.list_dir(dir)) {
        if (!name.starts_with("nvidia") && !name.starts_with("nouveau")) continue;
        if (name.find(".ko") == std::string::npos) continue;
        Json f = Json::object();
        f["kernel"] = release;
        f["path"] = dir + "/" + name;
        files.push_back(f);
        if (files.size() > 64) return files;
      }
    }
  }
  return files;
}

Json probe_proc_gpus(const FsRoot& root) {
  Json gpus = Json::array();
  for (const auto& bus : root.list_dir("/proc/driver/nvidia/gpus")) {
    auto path = fmt::format("/proc/driver/nvidia/gpus/{}/information", bus);
    Json g = Json::object();
    g["bus_id"] = bus;
    auto data = root.read_file(path);
    if (!data) {
      g["error"] = unknown_fact(file_source(path), data.error);
    } else {
      auto fields = machine::parse_colon_fields(*data.data);
      auto src = file_source(path);
      for (const auto& [key, out] : {std::pair{"Model", "model"},
                                     {"GPU UUID", "uuid"},
                                     {"Bus Location", "bus_location"},
                                     {"Device Minor", "device_minor"},
                                     {"Video BIOS", "vbios"},
                                     {"Bus Type", "bus_type"}}) {
        if (fields.count(key)) g[out] = fact(fields[key], src);
      }
    }
    gpus.push_back(g);
  }
  return gpus;
}

std::string read_trimmed(const FsRoot& root, const std::string& path) {
  auto d = root.read_file(path, 4096);
  return d ? std::string(machine::trim(*d.data)) : "";
}

Json probe_pci(const FsRoot& root) {
  Json devices = Json::array();
  for (const auto& bdf : root.list_dir("/sys/bus/pci/devices")) {
    auto dir = "/sys/bus/pci/devices/" + bdf;
    if (read_trimmed(root, dir + "/vendor") != "0x10de") continue;
    std::string cls = read_trimmed(root, dir + "/class");
    // 0x03xxxx display controllers are GPUs; 0x0680 bridges are NVSwitches.
    if (!cls.starts_with("0x03") && !cls.starts_with("0x0680")) continue;
    Json d = Json::object();
    auto src = file_source(dir);
    d["bus_id"] = fact(bdf, src);
    d["device_id"] = fact(read_trimmed(root, dir + "/device"), file_source(dir + "/device"));
    d["subsystem_device_id"] =
        fact(read_trimmed(root, dir + "/subsystem_device"), file_source(dir + "/subsystem_device"));
    d["class"] = fact(cls, file_source(dir + "/class"));
    d["kind"] = cls.starts_with("0x0680") ? "nvswitch" : "gpu";
    auto link = root.read_link(dir + "/driver");
    d["bound_driver"] = link ? fact(base_name(*link), file_source(dir + "/driver"))
                             : fact(nullptr, file_source(dir + "/driver"));
    devices.push_back(d);
    if (devices.size() >= 512) break;
  }
  return devices;
}

Json probe_device_nodes(const FsRoot& root) {
  Json nodes = Json::array();
  std::vector<std::string> names = {"nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset"};
  for (const auto& n : root.list_dir("/dev")) {
    if (n.size() > 6 && n.starts_with("nvidia") &&
        std::all_of(n.begin() + 6, n.end(), [](char c) { return c >= '0' && c <= '9'; }))
      names.push_back(n);
  }
  if (root.exists("/dev/dxg")) names.push_back("dxg");
  for (const auto& n : names) {
    auto path = "/dev/" + n;
    Json node = Json::object();
    node["path"] = path;
    node["exists"] = root.exists(path);
    node["char_device"] = root.is_char_device(path);
    node["accessible"] = node["exists"].get<bool>() && root.can_read_write(path);
    nodes.push_back(node);
  }
  return nodes;
}

}  // namespace

std::string parse_nvrm_version(std::string_view text, bool* open_module) {
  auto lines = machine::split_lines(text);
  for (auto line : lines) {
    if (!line.starts_with("NVRM version:")) continue;
    if (open_module) *open_module = line.find("Open Kernel Module") != std::string_view::npos;
    auto pos = line.find("Kernel Module");
    if (pos == std::string_view::npos) pos = 0;
    std::string_view rest = line.substr(pos);
    // The first whitespace-separated token that is a dotted version.
    while (!rest.empty()) {
      while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
      auto end = rest.find_first_of(" \t");
      auto token = rest.substr(0, end);
      if (token.find('.') != std::string_view::npos && Version::parse(token)) return std::string(token);
      if (end == std::string_view::npos) break;
      rest.remove_prefix(end);
    }
  }
  return "";
}

Json probe_kernel_driver(const ProbeContext& ctx) {
  const auto& root = ctx.machine.root;
  Json kd = Json::object();
  {
    const char* path = "/proc/driver/nvidia/version";
    auto data = root.read_file(path);
    if (!data) {
      kd["version"] = unknown_fact(file_source(path), data.error);
    } else {
      bool open = false;
      auto v = parse_nvrm_version(*data.data, &open);
      kd["version"] =
          v.empty() ? unknown_fact(file_source(path), "no NVRM version line") : fact(v, file_source(path));
      if (!v.empty()) kd["open_kernel_module"] = fact(open, file_source(path));
    }
  }
  {
    const char* path = "/sys/module/nvidia/version";
    auto data = root.read_file(path);
    kd["sysfs_version"] = data ? fact(machine::sanitize(machine::trim(*data.data)), file_source(path))
                               : unknown_fact(file_source(path), data.error);
  }
  kd["modules"] = probe_modules(root);
  kd["module_files"] = probe_module_files(root);
  kd["gpus"] = probe_proc_gpus(root);
  kd["pci_devices"] = probe_pci(root);
  kd["device_nodes"] = probe_device_nodes(root);
  return kd;
}

namespace {
const RegisterProbe kKernelDriverProbe{
    {"kernel_driver", ProbeStage::kEarly, 1, nullptr,
     [](const ProbeContext& ctx, const CollectOptions&, const Json&) { return probe_kernel_driver(ctx); },
     true}};
}  // namespace

}  // namespace cudiag::probes
