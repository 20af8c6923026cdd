#include "kernel_test/deep_check.h"

#include "core/fsroot.h"
#include "core/options.h"
#include "core/subprocess.h"
#include "kb/knowledge_base.h"
#include "kernel_test/kernel_test.h"
#include "machine/machine.h"

namespace cudiag::kernel_test {

int add_kernel_test(Json& report, const machine::Machine& machine, const GlobalOptions& global) {
  const FsRoot& root = machine.root;
  Plan plan;
  if (root.is_real_root()) {
    plan = plan_from_report(report, machine);
  } else {
    // A machine read from a directory cannot run kernels; say so rather than test this one.
    plan.nvrtc_enabled = false;
    plan.frameworks_enabled = false;
  }
  RunOptions options;
  options.timeout = machine.options.child_timeout;
  options.self_exe = self_executable();
  if (auto v = machine.env.get("CUDA_VISIBLE_DEVICES")) {
    options.cuda_visible_devices = *v;
    options.cuda_visible_devices_set = true;
  }
  const auto& kb = kb::active_kb(global);
  ErrorLookup errors = [&kb](std::string_view api, long code) -> std::optional<ErrorText> {
    const auto* e = kb.error(api, code);
    if (e == nullptr) return std::nullopt;
    return ErrorText{e->name, e->meaning};
  };
  if (!root.is_real_root()) {
    Json section = Json::object();
    section["status"] = "not run";
    section["reason"] = "the machine was read from a directory (--root); kernels run only on this machine";
    report["kernel_test"] = section;
    return 0;
  }
  report["kernel_test"] = run_kernel_test(plan, options, errors);
  return kernel_test_exit_code(report["kernel_test"]);
}

}  // namespace cudiag::kernel_test
