#pragma once
// What NVIDIA's container stack makes of an image's environment before any
// requirement is evaluated (nvidia-container-toolkit at d34b3046):
// internal/config/image/cuda_image.go GetRequirements / IsLegacy /
// HasDisableRequire / parseMajorMinorVersion / devicesFromEnvvars,
// devices.go NewVisibleDevices, and the hook's getNvidiaConfig
// (cmd/nvidia-container-runtime-hook/container_config.go), plus which
// runtime path checks requirements at all (internal/info/auto.go,
// internal/modifier/{csv,cdi}.go, CHANGELOG v1.18.0).
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudiag::rules {

using ImageEnv = std::map<std::string, std::string>;  // the variables that are set

// Go's strconv.ParseBool, true only for 1 t T TRUE true True.
bool go_parse_bool_true(const std::string& s);

// parseMajorMinorVersion: "M.m" of a semver-parsable CUDA_VERSION whose
// major and minor fit in 32 bits; nullopt when invalid.
std::optional<std::string> parse_major_minor(const std::string& version);

struct ImageRequirements {
  bool disabled = false;             // NVIDIA_DISABLE_REQUIRE
  bool legacy = false;               // CUDA_VERSION set, NVIDIA_REQUIRE_CUDA empty
  std::optional<std::string> error;  // an unparsable legacy CUDA_VERSION
  std::vector<std::string> requirements;
  std::vector<std::string> variables;  // where each requirement came from
};
ImageRequirements image_requirements(const ImageEnv& env);

// The devices requested through the environment; nullopt is Go's nil:
// unset, empty or "void" (not a GPU container). "none" gives {""}.
// `preferred` are the configured swarm-resource variables.
std::optional<std::vector<std::string>> visible_devices(const ImageEnv& env,
                                                        const std::vector<std::string>& preferred = {});

struct HookConfig {
  enum class Kind { kNotGpuContainer, kRefused, kConfigured } kind = Kind::kNotGpuContainer;
  std::string reason;  // kRefused: why the hook panics
  std::vector<std::string> devices;
  std::vector<std::string> requirements;
};
// getNvidiaConfig with the default configuration (environment requests
// accepted in unprivileged containers). `swarm_resource` is the config's
// comma-separated swarm-resource option.
HookConfig hook_config(const ImageEnv& env, bool privileged, const std::string& swarm_resource = "");

// Which path of the NVIDIA container runtime handles a container, and
// whether that path evaluates NVIDIA_REQUIRE_*.
enum class RuntimePath { kLegacyHook, kCsv, kCdi, kJitCdi, kUnknown };
const char* runtime_path_name(RuntimePath p);
bool path_checks_requirements(RuntimePath p);  // legacy: libnvidia-container; csv: the Go evaluator

struct RuntimeSetup {
  std::optional<std::string> toolkit_version;  // "1.18.0"
  std::optional<std::string> mode;             // config.toml mode: auto, legacy, cdi, jit-cdi, csv
  bool tegra = false;
};
// For `nvidia-container-runtime` (docker --runtime=nvidia, containerd,
// Kubernetes): auto resolves to csv on Tegra, else jit-cdi from toolkit
// 1.18.0 and legacy before. `docker --gpus` runs the hook, which always
// resolves auto to legacy.
RuntimePath runtime_path(const RuntimeSetup& setup);

}  // namespace cudiag::rules

#include "rules/require_expression.h"

namespace cudiag::rules {

// The legacy hook path end to end: getNvidiaConfig on the image's
// environment, then libnvidia-container's configure on the selected GPUs
// (`all`, indexes into `gpus`, or none for "none"; ids cudiag cannot map
// select every GPU).
struct HookVerdict {
  enum class Kind { kNotChecked, kRefused, kEvaluated } kind = Kind::kNotChecked;
  std::string reason;  // kNotChecked / kRefused
  HookConfig config;
  RequireResult result;  // kEvaluated
};
HookVerdict hook_path_verdict(const ImageEnv& env, const RequireHost& host,
                              const std::vector<RequireGpu>& gpus, bool privileged = true);

}  // namespace cudiag::rules
