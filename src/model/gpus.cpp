#include "model/gpus.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <utility>

#include "kb/knowledge_base.h"
#include "model/facts.h"

namespace cudiag::model {

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "00000000:01:00.0" (NVML) and "0000:01:00.0" (sysfs) name the same device.
std::string short_bus_id(const std::string& bus) {
  auto s = lower(bus);
  return s.size() > 7 ? s.substr(s.size() - 7) : s;
}

std::optional<unsigned> parse_hex(const std::string& text) {
  std::string_view s = text;
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  unsigned v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

void fill_from_kb(GpuView& g, const kb::KnowledgeBase* kb) {
  if (kb != nullptr && !g.kb_gpu && !g.name.empty()) {
    auto matches = kb->gpus_matching(g.name);
    if (!matches.empty()) g.kb_gpu = matches.front();
  }
  if (g.kb_gpu) {
    if (!g.cc) g.cc = g.kb_gpu->cc;
    if (g.segment.empty()) g.segment = g.kb_gpu->segment;
    if (g.name.empty()) g.name = g.kb_gpu->name;
  }
  if (g.cc && kb != nullptr) g.arch = kb->arch_for_cc(*g.cc);
  std::string what = !g.name.empty() ? g.name
                     : g.cc          ? fmt::format("compute capability {} GPU", g.cc->text())
                                     : "NVIDIA GPU";
  g.label =
      g.bus_id.empty() || g.bus_id.starts_with("assume") ? what : fmt::format("{} ({})", what, g.bus_id);
}

}  // namespace

bool gpus_known(const Json& report) {
  return fact_at(report, "kernel_driver.pci_devices").is_array() || fact_at(report, "nvml.gpus").is_array() ||
         fact_at(report, "driver_api.devices").is_array();
}

bool gpu_count_known(const Json& report) {
  if (!gpus_known(report)) return false;
  const Json& pci = fact_at(report, "kernel_driver.pci_devices");
  if (!pci.is_array()) return true;
  for (const auto& d : pci) {
    if (d.is_object() && d.contains("named_only") && d["named_only"].is_object() &&
        d["named_only"].value("value", false))
      return false;
  }
  return true;
}

std::vector<GpuView> derive_gpus(const Json& report, const kb::KnowledgeBase* kb) {
  std::vector<GpuView> out;
  const Json& nvml = fact_at(report, "nvml.gpus");
  const Json& cu = fact_at(report, "driver_api.devices");
  auto from_calls = [&](const std::string& bus, GpuView& g) {
    // NVML and cuDeviceGetAttribute know the compute capability the PCI id may not.
    for (const Json* list : {&nvml, &cu}) {
      if (!list->is_array()) continue;
      for (const auto& d : *list) {
        if (short_bus_id(str_field(d, "pci_bus_id")) != short_bus_id(bus)) continue;
        if (!g.cc) {
          if (auto v = Version::parse(str_field(d, "compute_capability"))) g.cc = v;
        }
        if (g.name.empty()) g.name = str_field(d, "name");
      }
    }
  };
  const Json& pci = fact_at(report, "kernel_driver.pci_devices");
  if (pci.is_array()) {
    for (std::size_t i = 0; i < pci.size(); ++i) {
      const Json& d = pci[i];
      if (!d.is_object() || d.value("kind", "gpu") != "gpu") continue;
      GpuView g;
      g.fact = fmt::format("kernel_driver.pci_devices[{}]", i);
      g.bus_id = str_field(d, "bus_id");
      g.bound_driver = str_field(d, "bound_driver");
      for (const char* key : {"device_id", "compute_capability", "name", "bus_id"}) {
        if (g.source.empty() && d.contains(key) && d[key].is_object()) g.source = d[key].value("source", "");
      }
      if (auto id = parse_hex(str_field(d, "device_id")); id && kb != nullptr)
        g.kb_gpu = kb->gpu_by_pci_id(*id);
      if (auto v = Version::parse(str_field(d, "compute_capability"))) g.cc = v;
      g.name = str_field(d, "name");
      if (!g.bus_id.empty()) from_calls(g.bus_id, g);
      fill_from_kb(g, kb);
      out.push_back(std::move(g));
    }
  }
  if (!out.empty()) return out;
  for (const auto& [list, base] : {std::pair{&nvml, "nvml.gpus"}, std::pair{&cu, "driver_api.devices"}}) {
    if (!list->is_array() || list->empty()) continue;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const Json& d = (*list)[i];
      GpuView g;
      g.fact = fmt::format("{}[{}]", base, i);
      g.source = base;
      g.name = str_field(d, "name");
      g.bus_id = str_field(d, "pci_bus_id");
      if (kb != nullptr && d.is_object() && d.contains("pci_device_id") &&
          d["pci_device_id"].is_number_unsigned())
        g.kb_gpu = kb->gpu_by_pci_id(d["pci_device_id"].get<unsigned>());
      if (auto v = Version::parse(str_field(d, "compute_capability"))) g.cc = v;
      fill_from_kb(g, kb);
      out.push_back(std::move(g));
    }
    break;
  }
  return out;
}

}  // namespace cudiag::model
