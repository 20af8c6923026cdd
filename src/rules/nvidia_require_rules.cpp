// An image's NVIDIA_REQUIRE_* (and a legacy image's CUDA_VERSION) against
// the host, the way NVIDIA's container stack decides: the hook's
// getNvidiaConfig picks the requirements and devices, libnvidia-container
// evaluates them per GPU with the host driver's values (never a cuda-compat
// libcuda's), and only the legacy hook path and CSV mode check at all — the
// runtime's jit-cdi default since toolkit 1.18.0 does not.
#include <fmt/format.h>

#include <algorithm>

#include "rules/container_requirements.h"
#include "rules/engine.h"
#include "rules/require_expression.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"

namespace cudiag::rules {
namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {.id = "host.nvidia_require_unsatisfied",
     .layer = "host",
     .severity = "error",
     .when = "the image's `NVIDIA_REQUIRE_*` (or a legacy image's `CUDA_VERSION`, as `cuda>=M.m`) refused as "
             "NVIDIA's stack decides (`src/rules/container_requirements.*`, `require_expression.cpp`, "
             "`require_go.cpp`): libnvidia-container's lazy evaluation per selected GPU with the **host** "
             "driver's values (a cuda-compat libcuda does not count), GPU brand from NVML / `--assume "
             "gpu_brand=` / the product name; a malformed expression reached by the evaluation, or an "
             "unparsable legacy `CUDA_VERSION`, is an error too. The message says which runtime path checks "
             "it on this host (legacy hook and CSV mode do; cdi and jit-cdi, the `--runtime=nvidia` default "
             "from toolkit 1.18.0, do not) and where the toolkit's Go evaluator would differ. Pinned by "
             "NVIDIA's own tests, ported in `tests/container-require/`",
     .covered_by = "scenario nvidia-require-csv-mode-go-evaluator",
     .message = "{problem}",
     .remediation = "{remedy}"},
    {.id = "host.nvidia_require_undecided",
     .layer = "host",
     .severity = "info",
     .when = "whether the runtime accepts the requirements depends on a value cudiag does not know "
             "(typically the GPU brand); names it and how to state it",
     .covered_by = "scenario nvidia-require-cuda-satisfied-by-branch-alternative",
     .message =
         "Whether the NVIDIA runtime accepts {requirements} on {host} with {gpus} depends on what cudiag does not know ({unknowns}).{path}",
     .remediation =
         "State it to decide: `--assume gpu_brand=tesla` (or the brand `nvidia-smi -q` shows as Product Brand), `--assume gpu=<product>`, `--assume driver=<version>`."},
    {.id = "host.nvidia_require_not_checked",
     .layer = "host",
     .severity = "info",
     .when = "`NVIDIA_VISIBLE_DEVICES` unset (non-legacy image), empty or `void` with requirements set: "
             "nothing is checked and the container gets no GPU",
     .covered_by = "scenario nvidia-require-void-devices-not-checked",
     .message =
         "NVIDIA_VISIBLE_DEVICES is {devices}: the NVIDIA runtime treats this as a container without GPUs, so it checks no NVIDIA_REQUIRE_* and the container gets no GPU.",
     .remediation =
         "Request GPUs (`docker run --gpus all`, NVIDIA_VISIBLE_DEVICES=all, or a CDI device) if this container should use CUDA."},
};

constexpr const char* kDocs =
    "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html";
constexpr const char* kDslSource = "https://github.com/NVIDIA/libnvidia-container/blob/main/src/cli/dsl.c";
constexpr const char* kChangelog =
    "https://github.com/NVIDIA/nvidia-container-toolkit/blob/main/CHANGELOG.md";

// libnvidia-container's src/driver.c: NVML brand numbers 1-6 by name, every
// newer one (NVIDIA, GeForce RTX, ...) as "Unknown".
std::string libnvc_brand(int nvml_brand) {
  switch (nvml_brand) {
    case 1:
      return "Quadro";
    case 2:
      return "Tesla";
    case 3:
      return "NVS";
    case 4:
      return "GRID";
    case 5:
      return "GeForce";
    case 6:
      return "TITAN";
    default:
      return "Unknown";
  }
}

// From a product name: its brand family, or "Unknown" when NVML reports one
// of the newer brand numbers (GeForce RTX, Titan RTX, ...). Names with no
// family word (A100, H100, RTX PRO 6000) leave the brand unknown.
std::optional<std::vector<std::string>> brands_from_name(const std::string& name) {
  for (const char* family : {"GeForce", "TITAN", "Quadro", "Tesla", "NVS", "GRID"}) {
    std::string n = name;
    std::string f = family;
    std::transform(n.begin(), n.end(), n.begin(), ::tolower);
    std::transform(f.begin(), f.end(), f.begin(), ::tolower);
    if (n.find(f) != std::string::npos) return std::vector<std::string>{family, "Unknown"};
  }
  return std::nullopt;
}

std::optional<int> nvml_brand(const Json& report, const GpuView& g) {
  const Json& list = fact_at(report, "nvml.gpus");
  if (!list.is_array()) return std::nullopt;
  for (const auto& d : list) {
    if (!d.contains("brand") || !d["brand"].is_number_integer()) continue;
    auto bus = d.value("pci_bus_id", "");
    if (list.size() == 1 ||
        (!bus.empty() && !g.bus_id.empty() &&
         (bus.find(g.bus_id) != std::string::npos || g.bus_id.find(bus) != std::string::npos)))
      return d["brand"].get<int>();
  }
  return std::nullopt;
}

struct Inputs {
  ImageEnv env;
  RequireHost host;
  std::vector<RequireGpu> gpus;
  std::vector<std::string> gpu_labels;
  std::string host_text;
};

Inputs gather(const Json& report, const kb::KnowledgeBase& kb) {
  Inputs in;
  for (const auto& [name, raw] : fact_at(report, "host.environment").items()) {
    if (auto v = env(report, name)) in.env[name] = *v;
  }
  // The host driver: the kernel module or NVML, not a cuda-compat libcuda.
  bool compat = bool_at(report, "driver_api.forward_compat_package").value_or(false);
  std::optional<Version> driver;
  for (const char* path : {"kernel_driver.version", "nvml.driver_version", "driver_api.library_version"}) {
    if (compat && std::string(path) == "driver_api.library_version") continue;
    if ((driver = version_at(report, path))) break;
  }
  std::optional<Version> cuda = version_at(report, "nvml.cuda_driver_version");
  if (!cuda && !compat) cuda = version_at(report, "driver_api.cuda_driver_version");
  if (!cuda && driver) cuda = kb.cuda_for_driver(*driver);
  if (driver) in.host.driver = driver->text();
  if (cuda) in.host.cuda = fmt::format("{}.{}", cuda->major(), cuda->minor());
  in.host_text = driver ? fmt::format("driver {} (CUDA {})", driver->text(), in.host.cuda.value_or("?"))
                        : "an unknown driver";
  auto stated = string_at(report, "host.gpu_brand");
  for (const auto& g : gpus(report, kb)) {
    RequireGpu r;
    if (g.cc) r.arch = fmt::format("{}.{}", g.cc->major(), g.cc->minor());
    std::string how;
    if (auto b = nvml_brand(report, g)) {
      r.brands = std::vector<std::string>{libnvc_brand(*b)};
      how = "NVML brand " + (*r.brands)[0];
    } else if (stated) {
      r.brands = std::vector<std::string>{*stated};
      how = "stated brand " + *stated;
    } else if (auto from_name = brands_from_name(g.kb_gpu ? g.kb_gpu->name : g.name)) {
      r.brands = from_name;
      how = fmt::format("brand {} or Unknown, from the product name", (*from_name)[0]);
    } else {
      how = "brand unknown";
    }
    in.gpus.push_back(r);
    in.gpu_labels.push_back(fmt::format("{} ({}{})", g.label, r.arch ? "sm " + *r.arch + ", " : "", how));
  }
  if (in.gpus.empty() && !gpus_known(report)) {
    in.gpus.push_back({});  // GPUs the report says nothing about: arch and brand unknown
    in.gpu_labels.push_back("GPUs of unknown arch and brand");
  }
  return in;
}

// What the host's toolkit does with this container, in words.
std::string path_sentence(const Json& report) {
  RuntimeSetup setup{string_at(report, "host.nvidia_container_toolkit.version"),
                     string_at(report, "host.nvidia_container_toolkit.mode"), false};
  auto path = runtime_path(setup);
  std::string toolkit = setup.toolkit_version ? "toolkit " + *setup.toolkit_version : "the host's toolkit";
  std::string mode = setup.mode.value_or("auto");
  switch (path) {
    case RuntimePath::kLegacyHook:
      return fmt::format(
          " On this host ({} in mode {}) both `docker --gpus` and `--runtime=nvidia` take the "
          "legacy hook path, which checks it.",
          toolkit, mode);
    case RuntimePath::kCsv:
      return fmt::format(
          " On this host ({}, mode {}) the runtime's CSV mode checks it with the toolkit's Go "
          "evaluator.",
          toolkit, mode);
    case RuntimePath::kCdi:
    case RuntimePath::kJitCdi:
      return fmt::format(
          " On this host ({} in mode {}) `--runtime=nvidia` uses {} and checks nothing: that "
          "container starts and its CUDA may fail later; `docker --gpus` still goes through the "
          "legacy hook, which refuses it.",
          toolkit, mode, runtime_path_name(path));
    case RuntimePath::kUnknown:
      break;
  }
  return " This is the legacy hook path's verdict (`docker --gpus`, or the runtime in legacy mode); in CDI or jit-cdi mode — `--runtime=nvidia` in auto mode from toolkit 1.18.0 — nothing is checked and the container starts.";
}

bool has_requirement_source(const Json& report, const ImageEnv& env) {
  for (const auto& [name, value] : env) {
    if (name.starts_with("NVIDIA_REQUIRE_") && !name.starts_with("NVIDIA_REQUIRE_JETPACK")) return true;
  }
  return env.contains("CUDA_VERSION") && container_kind(report).has_value();
}

void nvidia_require(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  if (!fact_at(report, "host.environment").is_object()) return;
  auto in = gather(report, kb);
  if (!has_requirement_source(report, in.env)) return;
  auto verdict = hook_path_verdict(in.env, in.host, in.gpus);
  const auto& reqs = verdict.config.requirements;
  auto add_common = [&](Finding& f) {
    for (const auto& [name, value] : in.env) {
      if (name.starts_with("NVIDIA_REQUIRE_") || name == "CUDA_VERSION" || name == "NVIDIA_VISIBLE_DEVICES" ||
          name == "NVIDIA_DISABLE_REQUIRE")
        f.evidence.push_back(evidence("host.environment." + name, value, "env:" + name));
    }
    HostDriver d = host_driver(report, kb);
    add_driver_evidence(f, report, d);
    add_doc(f, kDocs, "Constraints (NVIDIA_REQUIRE_*)");
    add_doc(f, kDslSource, "dsl_evaluate");
  };
  if (verdict.kind == HookVerdict::Kind::kNotChecked) {
    if (in.env.contains("NVIDIA_DISABLE_REQUIRE") && go_parse_bool_true(in.env["NVIDIA_DISABLE_REQUIRE"]))
      return;
    auto f = finding("host.nvidia_require_not_checked",
                     {{"devices", !in.env.contains("NVIDIA_VISIBLE_DEVICES") ? "unset"
                                  : in.env["NVIDIA_VISIBLE_DEVICES"].empty()
                                      ? "empty"
                                      : "\"" + in.env["NVIDIA_VISIBLE_DEVICES"] + "\""}});
    add_common(f);
    out.push_back(std::move(f));
    return;
  }
  if (verdict.kind == HookVerdict::Kind::kRefused) {
    auto f = finding(
        "host.nvidia_require_unsatisfied",
        {{"problem",
          fmt::format("The NVIDIA container hook refuses to start this image: {}.", verdict.reason)},
         {"remedy", "Set CUDA_VERSION to a version such as 12.4 or 12.4.1, or set NVIDIA_REQUIRE_CUDA."}});
    add_common(f);
    out.push_back(std::move(f));
    return;
  }
  // CSV mode (Tegra) evaluates with the toolkit's Go code instead: cuda of the libcuda the runtime
  // loads, device 0's arch. The verdict follows the path this host takes, and names the other.
  RuntimeSetup setup{string_at(report, "host.nvidia_container_toolkit.version"),
                     string_at(report, "host.nvidia_container_toolkit.mode"), false};
  const bool csv = runtime_path(setup) == RuntimePath::kCsv;
  std::optional<std::string> arch0 = in.gpus.empty() ? std::nullopt : in.gpus[0].arch;
  const RequireResult go = evaluate_toolkit_go(reqs, in.host.cuda, arch0);
  const RequireResult& r = csv ? go : verdict.result;
  const RequireResult& other = csv ? verdict.result : go;
  const std::string who = csv ? "the runtime's CSV mode (the toolkit's Go evaluator)" : "libnvidia-container";
  std::string gpus_text;
  for (const auto& l : in.gpu_labels) gpus_text += (gpus_text.empty() ? "" : "; ") + l;
  if (gpus_text.empty()) gpus_text = "no GPU";
  std::string joined;
  for (const auto& q : reqs) joined += (joined.empty() ? "\"" : " AND \"") + q + "\"";
  if (!r.decided()) {
    std::string unknowns;
    for (const auto& u : r.unknowns) unknowns += (unknowns.empty() ? "" : ", ") + u;
    auto f = finding("host.nvidia_require_undecided", {{"requirements", joined},
                                                       {"host", in.host_text},
                                                       {"gpus", gpus_text},
                                                       {"unknowns", unknowns.empty() ? "the host" : unknowns},
                                                       {"path", path_sentence(report)}});
    add_common(f);
    out.push_back(std::move(f));
    return;
  }
  if (r.outcome() == RequireOutcome::kSatisfied) return;
  bool invalid = r.outcome() == RequireOutcome::kInvalid;
  std::string go_note;
  if (other.decided() && other.outcome() != r.outcome())
    go_note =
        csv ? fmt::format(" (libnvidia-container, on the legacy hook path, would answer {}.)",
                          outcome_name(other.outcome()))
            : fmt::format(" (The toolkit's Go evaluator, used only in CSV mode on Tegra, would answer {}.)",
                          outcome_name(other.outcome()));
  auto f = finding(
      "host.nvidia_require_unsatisfied",
      {{"problem",
        invalid
            ? fmt::format(
                  "{}: {} refuses to start this image on {} with {} (\"{}\"): a malformed requirement is an error, not a warning.{}{}",
                  joined, who, in.host_text, gpus_text, r.message, path_sentence(report), go_note)
            : fmt::format(
                  "{} is not met by the host's {} with {}: {} refuses to start this image (\"{}\").{}{}",
                  r.failed_requirement.empty() ? joined : "\"" + r.failed_requirement + "\"", in.host_text,
                  gpus_text, who, r.message, path_sentence(report), go_note)},
       {"remedy",
        invalid
            ? "Fix the expression: alternatives separated by single spaces, conditions within one by commas, each NAME OP VALUE with NAME cuda, driver, arch or brand, OP one of = != < <= > >=, and a value of digits and dots (no v prefix, no tabs)."
            : "Upgrade the host driver to one that meets the image's condition, or use an image built for an older CUDA; NVIDIA_DISABLE_REQUIRE=1 skips the check but not the incompatibility. A cuda-compat package in the image does not count: the runtime compares against the host driver."}});
  add_common(f);
  add_doc(f, kChangelog, "v1.18.0: Default to jit-cdi mode in the nvidia runtime");
  out.push_back(std::move(f));
}

const RegisterRule kRequire{{"host.nvidia_require", nvidia_require}};

}  // namespace
}  // namespace cudiag::rules
