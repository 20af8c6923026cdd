// Child probe "cudart": loads one libcudart (after the libcuda the report
// says the loader picks, so the runtime meets that driver) and asks it.
#include "child/child_probe.h"
#include "child/dl.h"

namespace cudiag::child {
namespace {

using CudaError = int;

Json probe_cudart(const std::vector<std::string>& args) {
  Json out = Json::object();
  if (args.empty()) throw std::runtime_error("cudart probe needs a library path");
  // A libcuda already loaded with RTLD_GLOBAL satisfies the runtime's own
  // dlopen("libcuda.so.1") by soname, so this pins which driver it talks to.
  if (args.size() > 1 && !args[1].empty()) {
    static Library driver(args[1], true);
    if (!driver.loaded()) out["driver_preload_error"] = driver.error();
  }
  Stopwatch load_time;
  Library lib(args[0]);
  out["load_ms"] = load_time.ms();
  if (!lib.loaded()) {
    out["load_error"] = lib.error();
    return out;
  }
  out["loaded_path"] = lib.loaded_path();
  Json calls = Json::object();
  auto int_call = [&](const char* name) {
    auto fn = lib.symbol<CudaError (*)(int*)>(name);
    if (fn == nullptr) {
      calls[name] = missing_symbol(name);
      return;
    }
    int value = 0;
    Stopwatch t;
    CudaError r = fn(&value);
    calls[name] = call_record(r, t.ms());
    if (r == 0) calls[name]["value"] = value;
  };
  int_call("cudaRuntimeGetVersion");
  int_call("cudaDriverGetVersion");
  int_call("cudaGetDeviceCount");
  out["calls"] = calls;
  return out;
}

const RegisterChildProbe kRegister{"cudart", probe_cudart};

}  // namespace
}  // namespace cudiag::child
