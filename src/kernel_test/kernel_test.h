#pragma once
// `cudiag test`: a real GPU operation, layer by layer. The driver API half
// (cuInit, device, primary context, the embedded kernel through the JIT and
// the SASS paths, every element checked), NVRTC (compile, load, run) and each
// Python framework's smallest real operation, each in a child process with a
// deadline. The result is the report's `kernel_test` section.
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/json.h"
#include "kernel_test/child_log.h"

namespace cudiag::machine {
struct Machine;
}

namespace cudiag::kernel_test {

struct Plan {
  std::string libcuda;               // the libcuda to test (the loader's pick); "" when none found
  std::vector<std::string> nvrtc;    // every libnvrtc to compile with
  std::vector<std::string> pythons;  // interpreters whose frameworks to test
  // Interpreter -> the frameworks the report's `frameworks` layer found in
  // its environment. A framework absent there is "not installed" without
  // starting Python; an interpreter not in the map is probed in its child.
  std::map<std::string, std::set<std::string>> frameworks_present;
  bool nvrtc_enabled = true;
  bool frameworks_enabled = true;
};

// What this machine offers: the loader's libcuda.so.1, every non-stub
// libnvrtc, python3 on PATH. Only what is enabled is looked for: the search
// for every libnvrtc lists every library directory, and it runs before the
// first child starts.
Plan plan_from_machine(const machine::Machine& machine, bool nvrtc = true, bool frameworks = true);
// The same from a collected report (driver_api.picked, libraries.nvrtc, the
// interpreters of frameworks.environments) plus python3 on PATH.
Plan plan_from_report(const Json& report, const machine::Machine& machine);

struct RunOptions {
  std::chrono::milliseconds timeout{10000};             // driver and NVRTC children
  std::chrono::milliseconds framework_timeout{120000};  // a framework's import can take long
  std::string self_exe;
  std::uint64_t seed = 0;            // 0: a random one
  std::string cuda_visible_devices;  // reported as given; the children inherit it
  bool cuda_visible_devices_set = false;
  // The caller's own work that can run while the children do (the knowledge
  // base a failed step's error is named from).
  std::function<void()> while_children_run;
};

Json run_kernel_test(const Plan& plan, const RunOptions& options, const ErrorLookup& errors);

// 0 when every test that ran passed on at least one device, 1 otherwise.
int kernel_test_exit_code(const Json& section);

}  // namespace cudiag::kernel_test
