#include "rules/rule_support.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace cudiag::rules {

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

std::string str_field(const Json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key)) return "";
  const Json& v = obj[key].is_object() && obj[key].contains("value") ? obj[key]["value"] : obj[key];
  return v.is_string() ? v.get<std::string>() : "";
}

void fill_from_kb(GpuView& g, const kb::KnowledgeBase& kb) {
  if (!g.kb_gpu && !g.name.empty()) {
    auto matches = kb.gpus_matching(g.name);
    if (!matches.empty()) g.kb_gpu = matches.front();
  }
  if (g.kb_gpu) {
    if (!g.cc) g.cc = g.kb_gpu->cc;
    if (g.segment.empty()) g.segment = g.kb_gpu->segment;
    if (g.name.empty()) g.name = g.kb_gpu->name;
  }
  if (g.cc) g.arch = kb.arch_for_cc(*g.cc);
  std::string what = !g.name.empty() ? g.name
                     : g.cc          ? fmt::format("compute capability {} GPU", g.cc->text())
                                     : "NVIDIA GPU";
  g.label =
      g.bus_id.empty() || g.bus_id.starts_with("assume") ? what : fmt::format("{} ({})", what, g.bus_id);
}

}  // namespace

const Json& value_at(const Json& report, const std::string& path) {
  const Json& node = fact_at(report, path);
  if (node.is_object() && node.contains("value")) return node["value"];
  return node;
}

std::optional<std::string> string_at(const Json& report, const std::string& path) {
  const Json& v = value_at(report, path);
  if (!v.is_string()) return std::nullopt;
  return v.get<std::string>();
}

std::optional<Version> version_at(const Json& report, const std::string& path) {
  auto s = string_at(report, path);
  if (!s) return std::nullopt;
  return Version::parse(*s);
}

std::optional<bool> bool_at(const Json& report, const std::string& path) {
  const Json& v = value_at(report, path);
  if (!v.is_boolean()) return std::nullopt;
  return v.get<bool>();
}

std::optional<long> code_at(const Json& report, const std::string& path) {
  const Json& node = fact_at(report, path);
  if (!node.is_object() || !node.contains("code") || !node["code"].is_number_integer()) return std::nullopt;
  return node["code"].get<long>();
}

bool is_assumed(const Json& report, const std::string& path) {
  const Json& node = fact_at(report, path);
  return node.is_object() && node.contains("source") && node["source"].is_string() &&
         node["source"].get<std::string>().starts_with("assume:");
}

bool present(const Json& report, const std::string& path) { return !fact_at(report, path).is_null(); }

Evidence evidence(std::string fact, Json value, std::string source) {
  return Evidence{std::move(fact), std::move(value), std::move(source)};
}

void add_docs(Finding& f, const std::vector<kb::Source>& sources) {
  for (const auto& s : sources) {
    bool dup = std::any_of(f.docs.begin(), f.docs.end(),
                           [&](const DocRef& d) { return d.url == s.url && d.section == s.section; });
    if (!dup) f.docs.push_back({s.url, s.section});
  }
}

void add_docs(Finding& f, const kb::Provenance& p) { add_docs(f, p.sources); }

HostDriver host_driver(const Json& report, const kb::KnowledgeBase& kb) {
  HostDriver d;
  d.kernel_module = version_at(report, "kernel_driver.version");
  d.forward_compat = bool_at(report, "driver_api.forward_compat_package").value_or(false);
  auto lib = version_at(report, "driver_api.library_version");
  if (d.forward_compat && lib) {
    d.version = lib;
    d.version_fact = "driver_api.library_version";
  } else {
    for (const char* path : {"kernel_driver.version", "nvml.driver_version", "driver_api.library_version"}) {
      if (auto v = version_at(report, path)) {
        d.version = v;
        d.version_fact = path;
        break;
      }
    }
  }
  // cuDriverGetVersion answers for the libcuda actually loaded (compat or not); NVML for the host driver.
  std::vector<const char*> cuda_paths = {"driver_api.cuda_driver_version", "nvml.cuda_driver_version"};
  for (const char* path : cuda_paths) {
    if (auto v = version_at(report, path)) {
      d.cuda = v;
      d.cuda_fact = path;
      break;
    }
  }
  if (!d.cuda && d.version) {
    if (auto c = kb.cuda_for_driver(*d.version)) d.cuda = c;
  }
  return d;
}

std::string describe(const HostDriver& d) {
  if (d.version && d.cuda) return fmt::format("{} (CUDA {})", d.version->text(), d.cuda->text());
  if (d.version) return d.version->text();
  if (d.cuda) return fmt::format("one that supports CUDA {}", d.cuda->text());
  return "unknown";
}

void add_driver_evidence(Finding& f, const Json& report, const HostDriver& d) {
  if (!d.version_fact.empty()) f.evidence.push_back(evidence_from(report, d.version_fact));
  if (!d.cuda_fact.empty()) f.evidence.push_back(evidence_from(report, d.cuda_fact));
}

bool gpus_known(const Json& report) {
  return fact_at(report, "kernel_driver.pci_devices").is_array() || fact_at(report, "nvml.gpus").is_array() ||
         fact_at(report, "driver_api.devices").is_array();
}

std::vector<GpuView> gpus(const Json& report, const kb::KnowledgeBase& kb) {
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
      if (d.value("kind", "gpu") != "gpu") continue;
      GpuView g;
      g.fact = fmt::format("kernel_driver.pci_devices[{}]", i);
      g.bus_id = str_field(d, "bus_id");
      g.bound_driver = str_field(d, "bound_driver");
      for (const char* key : {"device_id", "compute_capability", "name", "bus_id"}) {
        if (g.source.empty() && d.contains(key) && d[key].is_object()) g.source = d[key].value("source", "");
      }
      if (auto id = parse_hex(str_field(d, "device_id"))) g.kb_gpu = kb.gpu_by_pci_id(*id);
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
      if (d.contains("pci_device_id") && d["pci_device_id"].is_number_unsigned())
        g.kb_gpu = kb.gpu_by_pci_id(d["pci_device_id"].get<unsigned>());
      if (auto v = Version::parse(str_field(d, "compute_capability"))) g.cc = v;
      fill_from_kb(g, kb);
      out.push_back(std::move(g));
    }
    break;
  }
  return out;
}

std::optional<std::string> env(const Json& report, const std::string& name) {
  const Json& e = fact_at(report, "host.environment");
  if (!e.is_object() || !e.contains(name)) return std::nullopt;
  const Json& v = e[name].is_object() && e[name].contains("value") ? e[name]["value"] : e[name];
  if (!v.is_string()) return std::nullopt;
  return v.get<std::string>();
}

bool env_collected(const Json& report) { return fact_at(report, "host.environment").is_object(); }

bool is_wsl(const Json& report) { return bool_at(report, "host.wsl.detected").value_or(false); }

std::optional<std::string> container_kind(const Json& report) {
  return string_at(report, "host.container.kind");
}

std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string file_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::optional<long> soname_major(const std::string& file_name) {
  auto pos = file_name.find(".so.");
  if (pos == std::string::npos) return std::nullopt;
  std::string_view rest(file_name);
  rest.remove_prefix(pos + 4);
  long v = 0;
  auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
  if (ec != std::errc()) return std::nullopt;
  return v;
}

std::optional<long> first_branch_for_cuda(const kb::KnowledgeBase& kb, const Version& cuda) {
  for (const auto& b : kb.driver_branches()) {
    if (b.cuda.major() > cuda.major() || (b.cuda.major() == cuda.major() && b.cuda.minor() >= cuda.minor()))
      return b.branch;
  }
  return std::nullopt;
}

Finding make_finding(std::string id, std::string layer, Severity severity, std::string message,
                     std::string remediation) {
  Finding f;
  f.id = std::move(id);
  f.layer = std::move(layer);
  f.severity = severity;
  f.message = std::move(message);
  f.remediation = std::move(remediation);
  return f;
}

void add_doc(Finding& f, std::string url, std::string section) {
  for (const auto& d : f.docs) {
    if (d.url == url && d.section == section) return;
  }
  f.docs.push_back({std::move(url), std::move(section)});
}

std::string CallFailure::describe() const {
  return name.empty() ? fmt::format("error {}", code) : fmt::format("{} ({})", name, code);
}

std::optional<CallFailure> failed_call(const Json& report, const std::string& path) {
  auto code = code_at(report, path);
  if (!code || *code == 0) return std::nullopt;
  CallFailure c;
  c.code = *code;
  if (auto name = string_at(report, path)) c.name = *name;
  return c;
}

std::string fact_error(const Json& report, const std::string& path) {
  const Json& node = fact_at(report, path);
  if (!node.is_object() || !node.contains("error") || !node["error"].is_string()) return "";
  return node["error"].get<std::string>();
}

std::string sentence_body(std::string text) {
  while (!text.empty() && (text.back() == '.' || text.back() == ' ')) text.pop_back();
  return text;
}

long branch_of(const Version& driver) { return driver.major(); }

}  // namespace cudiag::rules
