// explain's machine check for "CUDA driver version is insufficient for CUDA
// runtime version" (runtime error 35) when the stated driver is not too old:
// under minor-version compatibility a driver runs every runtime of its own
// CUDA major, so error 35 beside such a driver means the process never reached
// it (a container started without the GPU, another libcuda or none), not a
// version gap. The runtime also reports a missing libcuda as error 35.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "explain/machine_context.h"
#include "kb/newest_cuda.h"
#include "model/cuda_runtimes.h"
#include "rules/framework_support.h"
#include "rules/rule_support.h"

namespace cudiag::explain {

namespace {

struct KnownRuntime {
  Version version;
  std::string what;  // "libcudart 12.1", "torch's CUDA 12.1"
};

// The CUDA runtimes the report states: libcudart files and the frameworks' CUDA builds.
std::vector<KnownRuntime> known_runtimes(const Context& c) {
  std::vector<KnownRuntime> out;
  for (const auto& r : model::derive_cuda_runtimes(c.report, &c.kb)) {
    if (r.version) out.push_back({*r.version, fmt::format("libcudart {}", r.version->text())});
  }
  for (const auto& r : rules::frameworks_in(c.report)) {
    const Json& cuda = rules::fw_value(c.report, r, "build.cuda");
    auto v = cuda.is_string() ? Version::parse(cuda.get<std::string>()) : std::nullopt;
    if (v) out.push_back({*v, fmt::format("{}'s CUDA {}", r.fw->value("name", "the framework"), v->text())});
  }
  return out;
}

}  // namespace

void check_runtime_gap(const Context& c) {
  if (!c.fix.empty()) return;
  auto d = rules::host_driver(c.report, c.kb);
  if (!d.version || !d.cuda) return;
  const long major = d.cuda->major();
  const auto* mvc = c.kb.mvc_for_major(major);
  if (!mvc || !mvc->linux_min || *d.version < *mvc->linux_min) return;  // no minor-version compatibility
  auto known = known_runtimes(c);
  if (std::any_of(known.begin(), known.end(),
                  [&](const KnownRuntime& r) { return r.version.major() > major; }))
    return;  // a runtime of a newer major: a real gap, the message's own fix (the driver) stands
  bool certain = !known.empty() || major >= kb::newest_cuda_major(c.kb);
  if (!certain && major < 12) return;  // an unknown runtime on an old driver is most often newer

  std::string runtimes;
  for (const auto& r : known) runtimes += (runtimes.empty() ? "" : ", ") + r.what;
  c.out.push_back(fmt::format(
      "Driver {} supports CUDA {} and, by minor-version compatibility, every CUDA {}.x runtime{}: error 35 "
      "beside it is not a version gap but a process that does not reach this driver's libcuda.",
      d.version->text(), d.cuda->text(), major,
      runtimes.empty() ? "" : " (the text states " + runtimes + ")"));
  std::string unless;
  if (!certain) {
    auto next = Version::parse(fmt::format("{}.0", major + 1));
    auto req = next ? c.kb.driver_for_cuda(*next) : std::nullopt;
    unless = fmt::format(
        " Only a program built for CUDA {} would be refused by this driver: if it is one, install driver {} or "
        "newer, or its CUDA {} build.",
        major + 1, req && req->full_min ? req->full_min->text() : fmt::format("for CUDA {}", major + 1),
        major);
  }
  if (c.e.in_container) {
    c.layer = "container";
    c.fix = fmt::format(
        "Driver {} runs every CUDA {}.x runtime, so the container does not reach it: start it with the GPU "
        "(docker run --gpus all or --runtime=nvidia; Compose: deploy.resources.reservations.devices; "
        "Kubernetes: resources.limits nvidia.com/gpu and runtimeClassName: nvidia), and check that the "
        "NVIDIA_VISIBLE_DEVICES and NVIDIA_DRIVER_CAPABILITIES variables (compute,utility) are set exactly, "
        "without stray spaces or quotes.{}",
        d.version->text(), major, unless);
  } else {
    c.fix = fmt::format(
        "Driver {} runs every CUDA {}.x runtime, so the program loads another libcuda.so.1 or none: look for "
        "an old copy or a cuda-compat directory on LD_LIBRARY_PATH (ldconfig -p | grep libcuda), or install "
        "the driver's CUDA library of this branch (libcuda1 / libnvidia-compute-<branch>).{}",
        d.version->text(), major, unless);
  }
}

}  // namespace cudiag::explain
