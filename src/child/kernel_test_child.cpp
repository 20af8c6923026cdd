// Child probe "kernel_test_driver": the driver API half of `cudiag test`.
// args: LIBCUDA FIRST_DEVICE SEED. Loads the libcuda, initialises it and, for
// each device from FIRST_DEVICE on, makes its primary context current and runs
// the test kernel twice: from the embedded PTX (the driver's JIT compiler) and
// from the embedded fatbin's SASS for the device's architecture. Every step is
// streamed (kernel_test_child.h); the parent restarts it after a device whose
// call hung or crashed, with FIRST_DEVICE set past that device.
#include "child/kernel_test_child.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "child/child_probe.h"

namespace cudiag::child {
namespace {

// cuModuleLoadData reads fatbin headers in place: give it 8-byte aligned bytes.
std::vector<std::uint64_t> aligned_copy(std::string_view bytes) {
  std::vector<std::uint64_t> out((bytes.size() + 7) / 8 + 1, 0);
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

int sm_of(const std::string& cc) {
  int major = 0;
  int minor = 0;
  if (std::sscanf(cc.c_str(), "%d.%d", &major, &minor) != 2) return -1;
  return major * 10 + minor;
}

void run_device(const CudaApi& cu, const StepLog& log, int ordinal, std::uint64_t seed) {
  auto device = get_device(cu, log, ordinal);
  if (!device || !make_context_current(cu, log, *device)) return;
  auto ptx = kernel_test::embedded_ptx();
  run_axpy(cu, log, "jit", ptx.data(), seed);

  auto fatbin = kernel_test::embedded_fatbin();
  auto archs = kernel_test::sass_archs();
  int sm = sm_of(compute_capability(cu, *device));
  if (fatbin.empty()) {
    log.skip("sass cuModuleLoadData", "not built (no nvcc at build time)");
  } else if (std::find(archs.begin(), archs.end(), sm) == archs.end()) {
    log.skip("sass cuModuleLoadData",
             fmt::format("no SASS for sm_{} embedded (built for sm {})", sm, fmt::join(archs, ",")));
  } else {
    auto image = aligned_copy(fatbin);
    run_axpy(cu, log, "sass", image.data(), seed + 1);  // other inputs than the JIT run
  }
}

Json kernel_test_driver(const std::vector<std::string>& args) {
  if (args.size() < 3) throw std::runtime_error("kernel_test_driver needs LIBCUDA FIRST_DEVICE SEED");
  const int first = std::stoi(args[1]);
  const std::uint64_t seed = std::stoull(args[2]);
  // A restarted child logs its own initialisation under the device it resumes at.
  StepLog init_log = first == 0 ? StepLog("driver") : StepLog("device", first);

  init_log.begin("dlopen");
  Stopwatch load_time;
  Library lib(args[0]);
  Json load = Json::object();
  if (lib.loaded()) {
    load["loaded_path"] = lib.loaded_path();
  } else {
    load["detail"] = lib.error();
  }
  init_log.end("dlopen", "dlopen", lib.loaded() ? 0 : 1, load_time.ms(), load);
  Json done = Json::object();
  done["event"] = "done";
  if (!lib.loaded()) return done;

  CudaApi cu;
  auto missing = cu.resolve(lib);
  if (!missing.empty()) {
    Json extra = Json::object();
    extra["detail"] = fmt::format("{} has no symbol {}", args[0], missing);
    init_log.end("dlsym", "dlsym", 1, 0, extra);
    return done;
  }
  if (first == 0) {
    int version = 0;
    if (init_log.driver_call("cuDriverGetVersion", cu, [&] { return cu.cuDriverGetVersion(&version); }) ==
        0) {
      Json v = Json::object();
      v["event"] = "driver_version";
      v["value"] = version;
      init_log.event(v);
    }
  }
  if (init_log.driver_call("cuInit", cu, [&] { return cu.cuInit(0); }) != 0) return done;
  int count = 0;
  if (init_log.driver_call("cuDeviceGetCount", cu, [&] { return cu.cuDeviceGetCount(&count); }) != 0)
    return done;
  Json c = Json::object();
  c["event"] = "device_count";
  c["value"] = count;
  init_log.event(c);
  for (int i = first; i < count; ++i)
    run_device(cu, StepLog("device", i), i, seed + 2 * static_cast<unsigned>(i));
  return done;
}

const RegisterChildProbe kRegister{"kernel_test_driver", kernel_test_driver};

}  // namespace
}  // namespace cudiag::child
