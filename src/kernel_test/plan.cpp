// What `cudiag test` will exercise: which libcuda, which libnvrtc copies,
// which Python interpreters.
#include <algorithm>
#include <filesystem>
#include <set>

#include "core/fsroot.h"
#include "kernel_test/kernel_test.h"
#include "machine/environment.h"
#include "machine/library_search.h"
#include "machine/machine.h"

namespace cudiag::kernel_test {

namespace {

// python3 on PATH, as the shell would run it (the first match), by its PATH name.
std::vector<std::string> pythons_on_path(const FsRoot& root, const machine::Environment& env) {
  for (const auto& dir : env.list("PATH")) {
    auto candidate = dir + "/python3";
    if (root.is_regular_file(candidate)) return {candidate};
  }
  return {};
}

}  // namespace

Plan plan_from_machine(const machine::Machine& machine, bool nvrtc, bool frameworks) {
  const FsRoot& root = machine.root;
  const machine::Environment& env = machine.env;
  Plan plan;
  plan.nvrtc_enabled = nvrtc;
  plan.frameworks_enabled = frameworks;
  machine::LibrarySearch search(root, env);
  if (auto pick = search.loader_pick("libcuda.so.1")) plan.libcuda = root.host_path(*pick);
  std::set<std::string> seen;
  for (const auto& inst : nvrtc ? search.find_all("libnvrtc.so") : std::vector<machine::LibraryInstance>{}) {
    if (inst.is_stub || !inst.error.empty()) continue;
    if (seen.insert(inst.real_path).second) plan.nvrtc.push_back(root.host_path(inst.real_path));
  }
  if (frameworks) plan.pythons = pythons_on_path(root, env);
  return plan;
}

Plan plan_from_report(const Json& report, const machine::Machine& machine) {
  Plan plan;
  auto at = [&report](const char* pointer) {
    Json::json_pointer p(pointer);
    return report.contains(p) ? report.at(p) : Json();
  };
  if (auto picked = at("/driver_api/picked/value"); picked.is_string())
    plan.libcuda = picked.get<std::string>();
  auto instances = at("/libraries/nvrtc/instances");
  for (const auto& inst : instances.is_array() ? instances : Json::array()) {
    auto path = inst.value("real_path", inst.value("path", ""));
    if (!path.empty() && !inst.value("is_stub", false)) plan.nvrtc.push_back(path);
  }
  // The real root, not the machine's (deliberately): the kernel test runs these interpreters, and only
  // this machine's can run (a fixture root's python3 is a file to read, never a program to execute).
  // Its PATH is the machine's environment, which for the real root is this process's.
  plan.pythons = pythons_on_path(FsRoot("/"), machine.env);
  auto envs = at("/frameworks/environments");
  for (const auto& e : envs.is_array() ? envs : Json::array()) {
    if (!e.contains("interpreter") || !e["interpreter"].is_string()) continue;
    auto python = e["interpreter"].get<std::string>();
    // Only a real absolute path can be run (a home path may be shown as "~/...").
    if (python.empty() || python.front() != '/' || !std::filesystem::exists(python)) continue;
    auto& present = plan.frameworks_present[python];
    for (const auto& fw : e.value("frameworks", Json::array())) present.insert(fw.value("name", ""));
    if (std::find(plan.pythons.begin(), plan.pythons.end(), python) == plan.pythons.end()) {
      plan.pythons.push_back(python);
    }
  }
  return plan;
}

}  // namespace cudiag::kernel_test
