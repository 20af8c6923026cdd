#include "probes/host_probe.h"

#include <fmt/format.h>
#include <gnu/libc-version.h>
#include <sys/utsname.h>

#include "core/fact.h"
#include "machine/text_util.h"
#include "probes/container_toolkit_probe.h"
#include "probes/probe_registry.h"

namespace cudiag::probes {

Json probe_os_release(const FsRoot& root) {
  Json os = Json::object();
  for (const char* path : {"/etc/os-release", "/usr/lib/os-release"}) {
    auto data = root.read_file(path);
    if (!data) continue;
    auto kv = machine::parse_key_values(*data.data);
    auto src = file_source(path);
    for (const auto& [key, field] :
         {std::pair{"ID", "id"}, {"VERSION_ID", "version_id"}, {"PRETTY_NAME", "pretty_name"}}) {
      os[field] = kv.count(key) ? fact(machine::sanitize(kv[key]), src)
                                : unknown_fact(src, fmt::format("no {} field", key));
    }
    return os;
  }
  os["pretty_name"] = unknown_fact(file_source("/etc/os-release"),
                                   "neither /etc/os-release nor /usr/lib/os-release is readable");
  return os;
}

namespace {

Json first_line_fact(const FsRoot& root, const char* path) {
  auto data = root.read_file(path);
  if (!data) return unknown_fact(file_source(path), data.error);
  auto line = machine::trim(machine::split_lines(*data.data).empty() ? std::string_view{}
                                                                     : machine::split_lines(*data.data)[0]);
  if (line.empty()) return unknown_fact(file_source(path), "empty");
  return fact(machine::sanitize(line, 400), file_source(path));
}

Json probe_architecture(const FsRoot& root) {
  if (auto arch = root.read_file("/proc/sys/kernel/arch"); arch && !machine::trim(*arch.data).empty()) {
    return fact(machine::sanitize(machine::trim(*arch.data)), file_source("/proc/sys/kernel/arch"));
  }
  if (root.is_real_root()) {
    utsname u{};
    if (::uname(&u) == 0) return fact(u.machine, "call:uname");
  }
  return unknown_fact(file_source("/proc/sys/kernel/arch"), "not readable");
}

Json probe_glibc(const FsRoot& root) {
  if (root.is_real_root()) return fact(gnu_get_libc_version(), "call:gnu_get_libc_version");
  // A captured machine: glibc < 2.34 names its file libc-2.31.so.
  for (const char* dir : {"/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib"}) {
    auto real = root.resolve(std::string(dir) + "/libc.so.6");
    if (!real) continue;
    auto name = base_name(*real.path);
    if (name.starts_with("libc-") && name.ends_with(".so"))
      return fact(name.substr(5, name.size() - 8), file_source(*real.path));
    if (auto v = root.read_file("/.cudiag/glibc-version"); v)
      return fact(std::string(machine::trim(*v.data)), file_source("/.cudiag/glibc-version"));
    return unknown_fact(file_source(*real.path), "glibc version is not in the file name");
  }
  return unknown_fact("file:/lib/x86_64-linux-gnu/libc.so.6", "not found");
}

void add_evidence(Json& list, std::string what) { list.push_back(std::move(what)); }

Json probe_container(const ProbeContext& ctx) {
  const auto& root = ctx.machine.root;
  Json evidence = Json::array();
  std::string kind;
  auto cgroup = root.read_file("/proc/1/cgroup");
  std::string cg = cgroup ? *cgroup.data : "";
  if (root.exists("/.dockerenv")) {
    kind = "docker";
    add_evidence(evidence, "file /.dockerenv exists");
  }
  if (root.exists("/run/.containerenv")) {
    kind = "podman";
    add_evidence(evidence, "file /run/.containerenv exists");
  }
  if (ctx.machine.env.get("container") == "podman") {
    kind = "podman";
    add_evidence(evidence, "environment variable container=podman");
  }
  if (cg.find("docker") != std::string::npos) {
    if (kind.empty()) kind = "docker";
    add_evidence(evidence, "/proc/1/cgroup mentions docker");
  }
  if (cg.find("kubepods") != std::string::npos || ctx.machine.env.has("KUBERNETES_SERVICE_HOST") ||
      root.exists("/var/run/secrets/kubernetes.io/serviceaccount")) {
    kind = "kubernetes";
    if (cg.find("kubepods") != std::string::npos) add_evidence(evidence, "/proc/1/cgroup mentions kubepods");
    if (ctx.machine.env.has("KUBERNETES_SERVICE_HOST"))
      add_evidence(evidence, "KUBERNETES_SERVICE_HOST is set");
    if (root.exists("/var/run/secrets/kubernetes.io/serviceaccount"))
      add_evidence(evidence, "/var/run/secrets/kubernetes.io/serviceaccount exists");
  }
  if (ctx.machine.env.has("APPTAINER_CONTAINER") || ctx.machine.env.has("SINGULARITY_CONTAINER") ||
      root.exists("/.singularity.d")) {
    kind = "apptainer";
    if (ctx.machine.env.has("APPTAINER_CONTAINER")) add_evidence(evidence, "APPTAINER_CONTAINER is set");
    if (ctx.machine.env.has("SINGULARITY_CONTAINER")) add_evidence(evidence, "SINGULARITY_CONTAINER is set");
    if (root.exists("/.singularity.d")) add_evidence(evidence, "directory /.singularity.d exists");
  }
  if (cg.find("/lxc") != std::string::npos && kind.empty()) {
    kind = "lxc";
    add_evidence(evidence, "/proc/1/cgroup mentions lxc");
  }
  Json c = Json::object();
  c["kind"] = kind.empty() ? fact(nullptr, "detect:container") : fact(kind, "detect:container");
  c["evidence"] = evidence;
  // What the NVIDIA container runtime leaves behind: driver files mounted in
  // from the host, and its variables.
  Json nvidia = Json::array();
  if (auto mounts = root.read_file("/proc/self/mountinfo", 4u << 20); mounts && !kind.empty()) {
    for (auto line : machine::split_lines(*mounts.data)) {
      if (line.find("libcuda.so") != std::string_view::npos ||
          line.find("libnvidia-ml.so") != std::string_view::npos ||
          line.find("/dev/nvidia") != std::string_view::npos ||
          line.find("/proc/driver/nvidia") != std::string_view::npos) {
        auto fields = line;
        // mountinfo field 5 is the mount point.
        std::size_t pos = 0;
        for (int i = 0; i < 4 && pos != std::string_view::npos; ++i) pos = fields.find(' ', pos + 1);
        if (pos == std::string_view::npos) continue;
        auto end = fields.find(' ', pos + 1);
        nvidia.push_back(machine::sanitize(fields.substr(pos + 1, end - pos - 1)));
        if (nvidia.size() >= 32) break;
      }
    }
  }
  c["nvidia_runtime_mounts"] = nvidia;
  c["nvidia_runtime"] = fact(!nvidia.empty(), "file:/proc/self/mountinfo");
  return c;
}

Json probe_wsl(const FsRoot& root) {
  Json evidence = Json::array();
  auto version = root.read_file("/proc/version");
  if (version && (version.data->find("microsoft") != std::string::npos ||
                  version.data->find("Microsoft") != std::string::npos ||
                  version.data->find("WSL") != std::string::npos)) {
    add_evidence(evidence, "/proc/version names a Microsoft (WSL) kernel");
  }
  if (root.is_dir("/usr/lib/wsl/lib")) add_evidence(evidence, "directory /usr/lib/wsl/lib exists");
  if (root.exists("/dev/dxg")) add_evidence(evidence, "device /dev/dxg exists");
  Json w = Json::object();
  w["detected"] = fact(!evidence.empty(), "detect:wsl");
  w["evidence"] = evidence;
  w["driver_lib_dir"] = root.is_dir("/usr/lib/wsl/lib") ? fact("/usr/lib/wsl/lib", "file:/usr/lib/wsl/lib")
                                                        : fact(nullptr, "file:/usr/lib/wsl/lib");
  return w;
}

Json probe_environment(const machine::Environment& env) {
  Json vars = Json::object();
  for (const auto& [name, value] : env.all()) {
    if (is_allowlisted_variable(name)) vars[name] = fact(machine::sanitize(value, 4096), env_source(name));
  }
  return vars;
}

Json probe_cuda_tools_on_path(const ProbeContext& ctx) {
  Json tools = Json::array();
  for (const auto& dir : ctx.machine.env.list("PATH")) {
    for (const char* tool :
         {"nvcc", "nvidia-smi", "cuobjdump", "ptxas", "nvdisasm", "ncu", "nsys", "compute-sanitizer"}) {
      auto path = join_path(dir, tool);
      if (!ctx.machine.root.is_regular_file(path)) continue;
      Json t = Json::object();
      t["tool"] = tool;
      t["path"] = path;
      tools.push_back(t);
    }
  }
  return tools;
}

}  // namespace

Json probe_host(const ProbeContext& ctx) {
  Json host = Json::object();
  host["os"] = probe_os_release(ctx.machine.root);
  host["kernel_release"] = first_line_fact(ctx.machine.root, "/proc/sys/kernel/osrelease");
  host["kernel_version"] = first_line_fact(ctx.machine.root, "/proc/version");
  host["architecture"] = probe_architecture(ctx.machine.root);
  host["glibc"] = probe_glibc(ctx.machine.root);
  host["container"] = probe_container(ctx);
  host["wsl"] = probe_wsl(ctx.machine.root);
  host["nvidia_container_toolkit"] = probe_container_toolkit(ctx.machine.root);
  host["environment"] = probe_environment(ctx.machine.env);
  if (!ctx.machine.env.read_error().empty()) {
    host["environment_error"] = unknown_fact(file_source("/proc/self/environ"), ctx.machine.env.read_error());
  }
  host["cuda_tools_on_path"] = probe_cuda_tools_on_path(ctx);
  return host;
}

namespace {
const RegisterProbe kHostProbe{
    {"host", ProbeStage::kEarly, 0, nullptr,
     [](const ProbeContext& ctx, const CollectOptions&, const Json&) { return probe_host(ctx); }, true}};
}  // namespace

}  // namespace cudiag::probes
