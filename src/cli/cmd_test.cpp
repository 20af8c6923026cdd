// `cudiag test`: runs a real kernel on every GPU, layer by layer (driver API
// with the JIT and SASS paths, NVRTC, each Python framework), and says which
// step failed first. Exit 0 when everything that ran passed on at least one
// device, 1 otherwise -- never a pass with zero devices.
#include <iostream>

#include "cli/command.h"
#include "core/errors.h"
#include "core/fsroot.h"
#include "kb/knowledge_base.h"
#include "kernel_test/kernel_test.h"
#include "machine/machine.h"
#include "render/kernel_test_text.h"
#include "render/output.h"
#include "render/render.h"
#include "report/collect.h"

namespace cudiag::cli {
namespace {

struct TestArgs {
  std::string format = "text";
  std::string output;
  std::string libcuda;
  std::vector<std::string> nvrtc;
  std::vector<std::string> pythons;
  bool no_nvrtc = false;
  bool no_frameworks = false;
  double framework_timeout_s = 120;
  std::uint64_t seed = 0;
};

// The knowledge base names a failed step's error; it is parsed while the
// children run, so a failing run does not wait for it after them.
kernel_test::ErrorLookup kb_errors(const GlobalOptions& global) {
  return [&global](std::string_view api, long code) -> std::optional<kernel_test::ErrorText> {
    const auto* e = kb::active_kb(global).error(api, code);
    if (e == nullptr) return std::nullopt;
    return kernel_test::ErrorText{e->name, e->meaning};
  };
}

CommandRun setup_test(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<TestArgs>();
  app.add_option("--format", args->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  app.add_option("-o,--output", args->output, "Write to FILE (atomically) instead of stdout");
  app.add_option("--libcuda", args->libcuda, "Test this libcuda instead of the one the loader picks");
  app.add_option("--nvrtc", args->nvrtc,
                 "Compile with this libnvrtc instead of every one found (repeatable)");
  app.add_option("--python", args->pythons,
                 "Also test the frameworks of this Python interpreter (repeatable)");
  app.add_flag("--no-nvrtc", args->no_nvrtc, "Skip the NVRTC compile-and-run test");
  app.add_flag("--no-frameworks", args->no_frameworks, "Skip the Python framework tests");
  app.add_option("--framework-timeout", args->framework_timeout_s,
                 "Seconds each framework's test may take (imports can be slow)")
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", args->seed, "Seed of the random inputs (default: a fresh one)");
  return [args, &global] {
    CollectOptions collect;
    collect.root = global.root;
    collect.child_timeout = std::chrono::milliseconds(static_cast<long>(global.timeout_s * 1000));
    // The one machine of this command, as `check --deep` hands the collection's to the kernel test.
    auto machine = machine::Machine::open(std::move(collect));
    if (!machine.root.is_real_root()) {
      throw InputError(
          "--root: `cudiag test` runs kernels on this machine; it cannot test a machine read from a "
          "directory");
    }
    auto plan = kernel_test::plan_from_machine(machine, !args->no_nvrtc, !args->no_frameworks);
    if (!args->libcuda.empty()) plan.libcuda = args->libcuda;
    if (!args->nvrtc.empty()) plan.nvrtc = args->nvrtc;
    plan.pythons.insert(plan.pythons.end(), args->pythons.begin(), args->pythons.end());
    plan.nvrtc_enabled = !args->no_nvrtc;
    plan.frameworks_enabled = !args->no_frameworks;

    kernel_test::RunOptions options;
    options.timeout = machine.options.child_timeout;
    options.framework_timeout =
        std::chrono::milliseconds(static_cast<long>(args->framework_timeout_s * 1000));
    options.seed = args->seed;
    if (auto v = machine.env.get("CUDA_VISIBLE_DEVICES")) {
      options.cuda_visible_devices = *v;
      options.cuda_visible_devices_set = true;
    }
    options.while_children_run = [&global] { kb::active_kb(global); };
    auto section = kernel_test::run_kernel_test(plan, options, kb_errors(global));

    std::string text;
    if (args->format == "json") {
      Json out = report::new_report();
      out["kernel_test"] = section;
      text = json_text(out) + "\n";
    } else {
      text = render::render_kernel_test_text(section,
                                             render::render_options(global, args->output.empty()).color);
    }
    render::write_output(text, render::output_kind_of_format(args->format),
                         {args->output, false, render::render_options(global, args->output.empty()).color});
    return kernel_test::kernel_test_exit_code(section);
  };
}

const RegisterCommand kTest{
    {"test", "Run a real kernel on every GPU, layer by layer, and check every element", 15, setup_test}};

}  // namespace
}  // namespace cudiag::cli
