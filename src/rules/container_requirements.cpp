#include "rules/container_requirements.h"

#include <algorithm>
#include <cctype>

#include "core/version.h"
#include "rules/require_expression.h"

namespace cudiag::rules {

namespace {

constexpr const char* kRequirePrefix = "NVIDIA_REQUIRE_";
constexpr const char* kJetpackPrefix = "NVIDIA_REQUIRE_JETPACK";

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\n\r\f\v");
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(" \t\n\r\f\v");
  return s.substr(b, e - b + 1);
}

std::string value_of(const ImageEnv& env, const std::string& name) {
  auto it = env.find(name);
  return it == env.end() ? "" : it->second;
}

bool is_legacy(const ImageEnv& env) {
  return !value_of(env, "CUDA_VERSION").empty() && value_of(env, "NVIDIA_REQUIRE_CUDA").empty();
}

}  // namespace

bool go_parse_bool_true(const std::string& s) {
  return s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True";
}

std::optional<std::string> parse_major_minor(const std::string& version) {
  if (!go_semver_valid(version)) return std::nullopt;
  std::string v = version.starts_with("v") ? version.substr(1) : version;
  auto parts = split_fields(v.substr(0, v.find_first_of("-+")), '.');
  auto fits32 = [](const std::string& p) {
    std::string digits = p.substr(std::min(p.find_first_not_of('0'), p.size()));
    return digits.size() < 10 || (digits.size() == 10 && digits <= "4294967295");
  };
  auto number = [](const std::string& p) {
    std::string digits = p.substr(std::min(p.find_first_not_of('0'), p.size()));
    return digits.empty() ? std::string("0") : digits;
  };
  if (!fits32(parts[0]) || (parts.size() > 1 && !fits32(parts[1]))) return std::nullopt;
  return number(parts[0]) + "." + (parts.size() > 1 ? number(parts[1]) : "0");
}

ImageRequirements image_requirements(const ImageEnv& env) {
  ImageRequirements r;
  if (auto it = env.find("NVIDIA_DISABLE_REQUIRE"); it != env.end() && go_parse_bool_true(it->second)) {
    r.disabled = true;
    return r;
  }
  for (const auto& [name, value] : env) {
    if (name.starts_with(kRequirePrefix) && !name.starts_with(kJetpackPrefix)) {
      r.requirements.push_back(value);
      r.variables.push_back(name);
    }
  }
  r.legacy = is_legacy(env);
  if (r.legacy) {
    auto cuda = value_of(env, "CUDA_VERSION");
    auto mm = parse_major_minor(cuda);
    if (!mm) {
      r.error = "failed to get version: invalid CUDA version " + cuda;
      r.requirements.clear();
      r.variables.clear();
      return r;
    }
    r.requirements.push_back("cuda>=" + *mm);
    r.variables.push_back("CUDA_VERSION");
  }
  return r;
}

std::optional<std::vector<std::string>> visible_devices(const ImageEnv& env,
                                                        const std::vector<std::string>& preferred) {
  std::vector<std::string> vars;
  for (const auto& p : preferred) {
    if (!p.empty() && env.contains(p)) vars.push_back(p);
  }
  if (vars.empty()) vars.push_back("NVIDIA_VISIBLE_DEVICES");
  bool is_set = false;
  bool void_requested = false;
  std::vector<std::string> devices;
  for (const auto& var : vars) {
    auto it = env.find(var);
    if (it == env.end()) continue;
    is_set = true;
    for (const auto& d : split_fields(it->second, ',')) {
      auto t = trim(d);
      if (t.empty()) continue;
      devices.push_back(t);
      void_requested = void_requested || t == "void";
    }
  }
  if (!is_set && devices.empty() && is_legacy(env)) devices = {"all"};
  if (devices.empty() || void_requested) return std::nullopt;
  // NewVisibleDevices: the first of all / none / void decides.
  for (const auto& d : devices) {
    if (d == "all") return std::vector<std::string>{"all"};
    if (d == "none") return std::vector<std::string>{""};
    if (d == "void") return std::nullopt;
  }
  // newDevices keeps each id at its last position, leaving "" at earlier ones.
  std::vector<std::string> list(devices.size());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (list[j] == devices[i]) list[j].clear();
    }
    list[i] = devices[i];
  }
  return list;
}

HookConfig hook_config(const ImageEnv& env, bool privileged, const std::string& swarm_resource) {
  HookConfig h;
  std::vector<std::string> preferred;
  for (const auto& p : split_fields(swarm_resource, ',')) {
    if (!trim(p).empty()) preferred.push_back(trim(p));
  }
  auto devices = visible_devices(env, preferred);
  if (!devices) return h;  // "empty devices means this is not a GPU container"
  for (const char* mig : {"NVIDIA_MIG_CONFIG_DEVICES", "NVIDIA_MIG_MONITOR_DEVICES"}) {
    if (!privileged && !value_of(env, mig).empty()) {
      h.kind = HookConfig::Kind::kRefused;
      h.reason = std::string("cannot set ") + (mig + 7) + " in non privileged container";
      return h;
    }
  }
  auto req = image_requirements(env);
  if (req.error) {
    h.kind = HookConfig::Kind::kRefused;
    h.reason = "failed to get requirements: " + *req.error;
    return h;
  }
  h.kind = HookConfig::Kind::kConfigured;
  h.devices = *devices;
  h.requirements = req.requirements;
  return h;
}

const char* runtime_path_name(RuntimePath p) {
  switch (p) {
    case RuntimePath::kLegacyHook:
      return "legacy";
    case RuntimePath::kCsv:
      return "csv";
    case RuntimePath::kCdi:
      return "cdi";
    case RuntimePath::kJitCdi:
      return "jit-cdi";
    case RuntimePath::kUnknown:
      return "unknown";
  }
  return "unknown";
}

bool path_checks_requirements(RuntimePath p) {
  return p == RuntimePath::kLegacyHook || p == RuntimePath::kCsv;
}

RuntimePath runtime_path(const RuntimeSetup& setup) {
  std::string mode = setup.mode.value_or("auto");
  if (mode == "legacy") return RuntimePath::kLegacyHook;
  if (mode == "csv") return RuntimePath::kCsv;
  if (mode == "cdi") return RuntimePath::kCdi;
  if (mode == "jit-cdi") return RuntimePath::kJitCdi;
  if (mode != "auto") return RuntimePath::kUnknown;
  if (setup.tegra) return RuntimePath::kCsv;
  if (!setup.toolkit_version) return RuntimePath::kUnknown;
  auto v = Version::parse(*setup.toolkit_version);
  if (!v) return RuntimePath::kUnknown;
  return *v >= *Version::parse("1.18.0") ? RuntimePath::kJitCdi : RuntimePath::kLegacyHook;
}

}  // namespace cudiag::rules

namespace cudiag::rules {

HookVerdict hook_path_verdict(const ImageEnv& env, const RequireHost& host,
                              const std::vector<RequireGpu>& gpus, bool privileged) {
  HookVerdict v;
  v.config = hook_config(env, privileged);
  if (v.config.kind == HookConfig::Kind::kNotGpuContainer) {
    v.reason = "NVIDIA_VISIBLE_DEVICES is unset, empty or void: not a GPU container, so nothing is checked";
    return v;
  }
  if (v.config.kind == HookConfig::Kind::kRefused) {
    v.kind = HookVerdict::Kind::kRefused;
    v.reason = v.config.reason;
    return v;
  }
  std::vector<RequireGpu> selected;
  const auto& devices = v.config.devices;
  bool none = devices.size() == 1 && devices[0].empty();
  bool all = std::find(devices.begin(), devices.end(), "all") != devices.end();
  if (!none && !all) {
    for (const auto& d : devices) {
      bool digits = !d.empty() && std::all_of(d.begin(), d.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      });
      if (!digits || d.size() > 6 || std::stoul(d) >= gpus.size()) {
        all = true;
        selected.clear();
        break;
      }
      selected.push_back(gpus[std::stoul(d)]);
    }
  }
  if (all) selected = gpus;
  v.kind = HookVerdict::Kind::kEvaluated;
  v.result = evaluate_libnvc(v.config.requirements, host, selected);
  return v;
}

}  // namespace cudiag::rules
