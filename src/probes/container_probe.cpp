#include "probes/container_probe.h"

#include <fmt/format.h>

#include "core/fact.h"
#include "machine/environment.h"
#include "machine/text_util.h"
#include "probes/host_probe.h"
#include "probes/probe_registry.h"

namespace cudiag::probes {

namespace {

bool is_lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// Which image this is, from the variables its Dockerfile sets: NGC framework
// images set NVIDIA_<FRAMEWORK>_VERSION (their release, e.g. 24.01);
// nvidia/cuda base images set NV_CUDA_LIB_VERSION / NV_CUDA_CUDART_VERSION
// beside CUDA_VERSION; older or third-party images only CUDA_VERSION.
Json image_name(const machine::Environment& env) {
  for (const auto& [var, label] : {std::pair{"NVIDIA_PYTORCH_VERSION", "NGC PyTorch"},
                                   {"NVIDIA_TENSORFLOW_VERSION", "NGC TensorFlow"},
                                   {"NVIDIA_TRITON_SERVER_VERSION", "NGC Triton Inference Server"}}) {
    if (auto v = env.get(var); v && !v->empty())
      return fact(fmt::format("{} {}", label, machine::sanitize(*v)), env_source(var));
  }
  auto cuda = env.get("CUDA_VERSION");
  if (cuda && !cuda->empty() && (env.has("NV_CUDA_LIB_VERSION") || env.has("NV_CUDA_CUDART_VERSION"))) {
    return fact(fmt::format("nvidia/cuda {}", machine::sanitize(*cuda)), env_source("NV_CUDA_LIB_VERSION"));
  }
  if (cuda && !cuda->empty())
    return fact(fmt::format("an image declaring CUDA_VERSION={}", machine::sanitize(*cuda)),
                env_source("CUDA_VERSION"));
  return fact(nullptr,
              "env:CUDA_VERSION,NV_CUDA_LIB_VERSION,NVIDIA_PYTORCH_VERSION,NVIDIA_TENSORFLOW_VERSION");
}

}  // namespace

std::string image_digest_error(std::string_view digest) {
  auto at = digest.rfind('@');
  auto d = at == std::string_view::npos ? digest : digest.substr(at + 1);
  if (at == 0) return "nothing before '@'";
  if (!d.starts_with("sha256:"))
    return "not an image digest (expected sha256:<64 hex digits>, optionally after NAME@)";
  auto hex = d.substr(7);
  if (hex.size() != 64) return fmt::format("sha256 digest has {} hex digits, expected 64", hex.size());
  for (char c : hex) {
    if (!is_lower_hex(c)) return "sha256 digest must be lower-case hex digits";
  }
  for (char c : digest.substr(0, at == std::string_view::npos ? 0 : at)) {
    if (static_cast<unsigned char>(c) <= ' ' || static_cast<unsigned char>(c) >= 0x7f)
      return "image name has a space or control character";
  }
  return "";
}

Json probe_container_image(const ProbeContext& ctx, const std::string& image_digest) {
  Json c = Json::object();
  c["image"] = image_name(ctx.machine.env);
  c["image_digest"] = image_digest.empty() ? unknown_fact("cli:--image-digest", "not given")
                                           : fact(image_digest, "cli:--image-digest");
  auto cuda = ctx.machine.env.get("CUDA_VERSION");
  c["cuda_version"] = cuda ? fact(machine::sanitize(*cuda), env_source("CUDA_VERSION"))
                           : unknown_fact(env_source("CUDA_VERSION"), "not set");
  c["os"] = probe_os_release(ctx.machine.root);  // inside a container, the image's own file
  Json vars = Json::object();
  for (const auto& [name, value] : ctx.machine.env.all()) {
    if (is_image_identity_variable(name) || name.starts_with("NVIDIA_REQUIRE_"))
      vars[name] = fact(machine::sanitize(value, 4096), env_source(name));
  }
  c["variables"] = vars;
  return c;
}

namespace {
const RegisterProbe kContainerProbe{{"container", ProbeStage::kAfterChildren, 1, nullptr,
                                     [](const ProbeContext& ctx, const CollectOptions& o, const Json&) {
                                       return probe_container_image(ctx, o.image_digest);
                                     },
                                     false}};
}  // namespace

}  // namespace cudiag::probes
