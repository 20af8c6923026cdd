// Child probe "kernel_test_nvrtc": the run-time compilation half of
// `cudiag test`. args: LIBNVRTC LIBCUDA SEED. Compiles the test kernel from
// CUDA C with this libnvrtc -- to PTX for the GPU's virtual architecture and,
// when the GPU is known, to a cubin for its real one -- then loads each with
// the libcuda and runs it on device 0 with the element-by-element check.
// Without a device the compilation is still tested: NVRTC needs no GPU.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <vector>

#include "child/child_probe.h"
#include "child/kernel_test_child.h"

namespace cudiag::child {
namespace {

using NvrtcResult = int;
using NvrtcProgram = void*;

// The kernel of src/kernel_test/kernels/axpy.cu, as NVRTC source.
constexpr const char* kSource = R"(
extern "C" __global__ void cudiag_axpy(const float* __restrict__ x, float* __restrict__ y, float a, float b,
                                       unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __fmaf_rn(a, x[i], b);
}
)";

struct NvrtcApi {
  NvrtcResult (*version)(int*, int*) = nullptr;
  NvrtcResult (*num_archs)(int*) = nullptr;
  NvrtcResult (*archs)(int*) = nullptr;
  NvrtcResult (*create)(NvrtcProgram*, const char*, const char*, int, const char* const*,
                        const char* const*) = nullptr;
  NvrtcResult (*compile)(NvrtcProgram, int, const char* const*) = nullptr;
  NvrtcResult (*log_size)(NvrtcProgram, std::size_t*) = nullptr;
  NvrtcResult (*log)(NvrtcProgram, char*) = nullptr;
  NvrtcResult (*ptx_size)(NvrtcProgram, std::size_t*) = nullptr;
  NvrtcResult (*ptx)(NvrtcProgram, char*) = nullptr;
  NvrtcResult (*cubin_size)(NvrtcProgram, std::size_t*) = nullptr;  // NVRTC >= 11.1
  NvrtcResult (*cubin)(NvrtcProgram, char*) = nullptr;
  NvrtcResult (*destroy)(NvrtcProgram*) = nullptr;
  const char* (*error_string)(NvrtcResult) = nullptr;

  explicit NvrtcApi(const Library& lib) {
    version = lib.symbol<decltype(version)>("nvrtcVersion");
    num_archs = lib.symbol<decltype(num_archs)>("nvrtcGetNumSupportedArchs");
    archs = lib.symbol<decltype(archs)>("nvrtcGetSupportedArchs");
    create = lib.symbol<decltype(create)>("nvrtcCreateProgram");
    compile = lib.symbol<decltype(compile)>("nvrtcCompileProgram");
    log_size = lib.symbol<decltype(log_size)>("nvrtcGetProgramLogSize");
    log = lib.symbol<decltype(log)>("nvrtcGetProgramLog");
    ptx_size = lib.symbol<decltype(ptx_size)>("nvrtcGetPTXSize");
    ptx = lib.symbol<decltype(ptx)>("nvrtcGetPTX");
    cubin_size = lib.symbol<decltype(cubin_size)>("nvrtcGetCUBINSize");
    cubin = lib.symbol<decltype(cubin)>("nvrtcGetCUBIN");
    destroy = lib.symbol<decltype(destroy)>("nvrtcDestroyProgram");
    error_string = lib.symbol<decltype(error_string)>("nvrtcGetErrorString");
  }
  bool usable() const { return create && compile && log_size && log && ptx_size && ptx && destroy; }
};

// One NVRTC call as a step; the library's own name for a failure goes with it.
NvrtcResult nvrtc_step(const NvrtcApi& api, const StepLog& log, const std::string& step, Json extra,
                       const std::function<NvrtcResult()>& fn) {
  log.begin(step);
  Stopwatch t;
  NvrtcResult r = fn();
  double ms = t.ms();
  if (r != 0 && api.error_string != nullptr) {
    if (const char* s = api.error_string(r)) extra["library_error_name"] = s;
  }
  log.end(step, "nvrtc", r, ms, std::move(extra));
  return r;
}

std::string program_log(const NvrtcApi& api, NvrtcProgram prog) {
  std::size_t size = 0;
  if (api.log_size(prog, &size) != 0 || size <= 1) return "";
  std::string text(size, '\0');
  if (api.log(prog, text.data()) != 0) return "";
  text.resize(size - 1);
  return text;
}

// Compiles kSource with one --gpu-architecture; returns the PTX or cubin, or nullopt.
std::optional<std::string> compile(const NvrtcApi& api, const StepLog& log, const std::string& arch,
                                   bool cubin) {
  NvrtcProgram prog = nullptr;
  if (nvrtc_step(api, log, "nvrtcCreateProgram", Json::object(),
                 [&] { return api.create(&prog, kSource, "cudiag_axpy.cu", 0, nullptr, nullptr); }) != 0) {
    return std::nullopt;
  }
  std::string option = "--gpu-architecture=" + arch;
  const char* options[] = {option.c_str()};
  log.begin("nvrtcCompileProgram " + arch);
  Stopwatch t;
  NvrtcResult r = api.compile(prog, 1, options);
  double ms = t.ms();
  Json extra = Json::object();
  extra["options"] = option;
  auto text = program_log(api, prog);
  if (r != 0) {
    extra["detail"] = text.empty() ? "no compile log" : text;
    if (api.error_string != nullptr && api.error_string(r) != nullptr)
      extra["library_error_name"] = api.error_string(r);
  }
  log.end("nvrtcCompileProgram " + arch, "nvrtc", r, ms, extra);
  std::optional<std::string> out;
  if (r == 0) {
    auto size_fn = cubin ? api.cubin_size : api.ptx_size;
    auto get_fn = cubin ? api.cubin : api.ptx;
    std::string bytes;
    Json info = Json::object();
    if (nvrtc_step(api, log, cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX", info, [&] {
          std::size_t size = 0;
          NvrtcResult rs = size_fn(prog, &size);
          if (rs != 0) return rs;
          bytes.assign(size, '\0');
          return get_fn(prog, bytes.data());
        }) == 0) {
      out = std::move(bytes);
    }
  }
  api.destroy(&prog);
  return out;
}

int lowest_supported_arch(const NvrtcApi& api) {
  int n = 0;
  if (api.num_archs == nullptr || api.archs == nullptr || api.num_archs(&n) != 0 || n <= 0) return 75;
  std::vector<int> archs(static_cast<std::size_t>(n));
  if (api.archs(archs.data()) != 0) return 75;
  return *std::min_element(archs.begin(), archs.end());
}

Json kernel_test_nvrtc(const std::vector<std::string>& args) {
  if (args.size() < 3) throw std::runtime_error("kernel_test_nvrtc needs LIBNVRTC LIBCUDA SEED");
  const std::uint64_t seed = std::stoull(args[2]);
  StepLog log("nvrtc");
  Json done = Json::object();
  done["event"] = "done";

  log.begin("dlopen");
  Stopwatch load_time;
  Library nvrtc(args[0]);
  Json load = Json::object();
  if (!nvrtc.loaded()) load["detail"] = nvrtc.error();
  log.end("dlopen", "dlopen", nvrtc.loaded() ? 0 : 1, load_time.ms(), load);
  if (!nvrtc.loaded()) return done;
  NvrtcApi api(nvrtc);
  if (!api.usable()) {
    Json extra = Json::object();
    extra["detail"] = args[0] + " lacks the NVRTC compile functions";
    log.end("dlsym", "dlsym", 1, 0, extra);
    return done;
  }
  int major = 0;
  int minor = 0;
  if (api.version != nullptr && api.version(&major, &minor) == 0) {
    Json v = Json::object();
    v["event"] = "nvrtc_version";
    v["value"] = fmt::format("{}.{}", major, minor);
    log.event(v);
  }

  // The GPU decides the architecture to compile for; without one, NVRTC's lowest.
  CudaApi cu;
  std::optional<int> device;
  Library libcuda(args[1]);
  std::string no_device_reason = "no libcuda";
  if (libcuda.loaded() && cu.resolve(libcuda).empty()) {
    int count = 0;
    if (log.driver_call("cuInit", cu, [&] { return cu.cuInit(0); }) != 0) {
      no_device_reason = "cuInit failed";
    } else if (cu.cuDeviceGetCount(&count) != 0 || count == 0) {
      no_device_reason = "no device";
    } else {
      device = get_device(cu, log, 0);
      if (!device) no_device_reason = "cuDeviceGet failed";
    }
  }
  int sm = -1;
  if (device) {
    auto cc = compute_capability(cu, *device);
    int cmaj = 0;
    int cmin = 0;
    if (std::sscanf(cc.c_str(), "%d.%d", &cmaj, &cmin) == 2) sm = cmaj * 10 + cmin;
  }
  const int virtual_sm = sm > 0 ? sm : lowest_supported_arch(api);
  auto ptx = compile(api, log, fmt::format("compute_{}", virtual_sm), false);
  if (ptx) {
    Json info = Json::object();
    info["event"] = "nvrtc_ptx";
    info["ptx_isa"] = kernel_test::ptx_directive(*ptx, ".version");
    info["target"] = kernel_test::ptx_directive(*ptx, ".target");
    log.event(info);
  }
  std::optional<std::string> cubin;
  if (sm > 0 && api.cubin_size != nullptr && api.cubin != nullptr) {
    cubin = compile(api, log, fmt::format("sm_{}", sm), true);
  } else {
    log.skip("nvrtcGetCUBIN",
             sm > 0 ? "this NVRTC has no nvrtcGetCUBIN (before 11.1)" : "GPU architecture unknown");
  }

  if (!device) {
    log.skip("nvrtc-ptx cuModuleLoadData", no_device_reason);
    return done;
  }
  if (!make_context_current(cu, log, *device)) return done;
  if (ptx) run_axpy(cu, log, "nvrtc-ptx", ptx->c_str(), seed);
  if (cubin) {
    std::vector<std::uint64_t> aligned((cubin->size() + 7) / 8, 0);
    std::copy(cubin->begin(), cubin->end(), reinterpret_cast<char*>(aligned.data()));
    run_axpy(cu, log, "nvrtc-cubin", aligned.data(), seed + 1);
  }
  return done;
}

const RegisterChildProbe kRegister{"kernel_test_nvrtc", kernel_test_nvrtc};

}  // namespace
}  // namespace cudiag::child
