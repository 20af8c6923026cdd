#include "kernel_test/deep_check.h"

#include "core/fsroot.h"
#include "core/options.h"
#include "core/subprocess.h"
#include "kb/knowledge_base.h"
#include "kernel_test/kernel_test.h"
#include "machine/environment.h"

namespace cudiag::kernel_test {

int add_kernel_test(Json& report, const GlobalOptions& global) {
  FsRoot root(global.root);
  auto env = machine::Environment::read(root);
  Plan plan;
  if (root.is_real_root()) {
    plan = plan_from_report(report, env);
  } else {
    // A machine read from a directory cannot run kernels; say so rather than test this one.
    plan.nvrtc_enabled = false;
    plan.frameworks_enabled = false;
  }
  RunOptions options;
  options.timeout = std::chrono::milliseconds(static_cast<long>(global.timeout_s * 1000));
  options.self_exe = self_executable();
  if (auto v = env.get("CUDA_VISIBLE_DEVICES")) {
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
