// The driver API half of `cudiag test`, shared by the driver and NVRTC
// children: symbol table, step log, context, launch and element check.
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "child/kernel_test_child.h"

namespace cudiag::child {

namespace {

constexpr int kAttrComputeCapabilityMajor = 75;  // CUdevice_attribute, cuda.h
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr unsigned kSentinel = 0x7fc0dead;  // a NaN: y before the kernel writes it

template <typename Fn>
bool bind(const Library& lib, Fn& slot, const char* name, std::string& missing) {
  slot = lib.symbol<Fn>(name);
  if (slot == nullptr && missing.empty()) missing = name;
  return slot != nullptr;
}

}  // namespace

std::string CudaApi::resolve(const Library& lib) {
  std::string missing;
  bind(lib, cuInit, "cuInit", missing);
  bind(lib, cuDriverGetVersion, "cuDriverGetVersion", missing);
  bind(lib, cuDeviceGetCount, "cuDeviceGetCount", missing);
  bind(lib, cuDeviceGet, "cuDeviceGet", missing);
  bind(lib, cuDeviceGetName, "cuDeviceGetName", missing);
  bind(lib, cuDeviceGetAttribute, "cuDeviceGetAttribute", missing);
  bind(lib, cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId", missing);
  bind(lib, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", missing);
  bind(lib, cuCtxSetCurrent, "cuCtxSetCurrent", missing);
  bind(lib, cuCtxSynchronize, "cuCtxSynchronize", missing);
  bind(lib, cuModuleLoadData, "cuModuleLoadData", missing);
  bind(lib, cuModuleGetFunction, "cuModuleGetFunction", missing);
  bind(lib, cuModuleUnload, "cuModuleUnload", missing);
  bind(lib, cuMemAlloc, "cuMemAlloc_v2", missing);
  bind(lib, cuMemFree, "cuMemFree_v2", missing);
  bind(lib, cuMemcpyHtoD, "cuMemcpyHtoD_v2", missing);
  bind(lib, cuMemcpyDtoH, "cuMemcpyDtoH_v2", missing);
  bind(lib, cuMemsetD32, "cuMemsetD32_v2", missing);
  bind(lib, cuLaunchKernel, "cuLaunchKernel", missing);
  std::string optional;  // only used for messages
  bind(lib, cuGetErrorName, "cuGetErrorName", optional);
  return missing;
}

void StepLog::event(Json record) const {
  record["scope"] = scope_;
  if (device_ >= 0) record["device"] = device_;
  auto text = record.dump();
  text.push_back('\n');
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);  // the parent must see it even if the next call never returns
}

void StepLog::begin(const std::string& step) const {
  Json j = Json::object();
  j["event"] = "begin";
  j["step"] = step;
  event(std::move(j));
}

void StepLog::end(const std::string& step, const std::string& api, long code, double ms, Json extra) const {
  Json j = Json::object();
  j["event"] = "end";
  j["step"] = step;
  j["api"] = api;
  j["code"] = code;
  j["ms"] = ms;
  for (auto& [k, v] : extra.items()) j[k] = v;
  event(std::move(j));
}

void StepLog::skip(const std::string& step, const std::string& reason) const {
  Json j = Json::object();
  j["event"] = "skip";
  j["step"] = step;
  j["reason"] = reason;
  event(std::move(j));
}

std::string compute_capability(const CudaApi& cu, int device) {
  int major = 0;
  int minor = 0;
  if (cu.cuDeviceGetAttribute(&major, kAttrComputeCapabilityMajor, device) != 0 ||
      cu.cuDeviceGetAttribute(&minor, kAttrComputeCapabilityMinor, device) != 0) {
    return "";
  }
  return fmt::format("{}.{}", major, minor);
}

std::optional<int> get_device(const CudaApi& cu, const StepLog& log, int ordinal) {
  int device = 0;
  if (log.driver_call("cuDeviceGet", cu, [&] { return cu.cuDeviceGet(&device, ordinal); }) != 0)
    return std::nullopt;
  Json info = Json::object();
  info["event"] = "device";
  info["ordinal"] = ordinal;
  char name[256] = {};
  if (cu.cuDeviceGetName(name, sizeof name - 1, device) == 0) info["name"] = name;
  auto cc = compute_capability(cu, device);
  if (!cc.empty()) info["compute_capability"] = cc;
  char bus[64] = {};
  if (cu.cuDeviceGetPCIBusId(bus, sizeof bus - 1, device) == 0) info["pci_bus_id"] = bus;
  log.event(std::move(info));
  return device;
}

bool make_context_current(const CudaApi& cu, const StepLog& log, int device) {
  void* ctx = nullptr;
  if (log.driver_call("cuDevicePrimaryCtxRetain", cu,
                      [&] { return cu.cuDevicePrimaryCtxRetain(&ctx, device); }) != 0) {
    return false;
  }
  return log.driver_call("cuCtxSetCurrent", cu, [&] { return cu.cuCtxSetCurrent(ctx); }) == 0;
}

bool run_axpy(const CudaApi& cu, const StepLog& log, const std::string& path, const void* image,
              std::uint64_t seed) {
  auto in = kernel_test::random_inputs(seed);
  const std::size_t n = in.x.size();
  const std::size_t bytes = n * sizeof(float);
  auto step = [&](const char* call) { return path + " " + call; };

  void* module = nullptr;
  if (log.driver_call(step("cuModuleLoadData"), cu, [&] { return cu.cuModuleLoadData(&module, image); }) !=
      0) {
    return false;
  }
  void* fn = nullptr;
  if (log.driver_call(step("cuModuleGetFunction"), cu,
                      [&] { return cu.cuModuleGetFunction(&fn, module, kernel_test::kEntryName); }) != 0) {
    return false;
  }
  CuDevicePtr x = 0;
  CuDevicePtr y = 0;
  bool ok = log.driver_call(step("cuMemAlloc"), cu, [&] {
    CuResult r = cu.cuMemAlloc(&x, bytes);
    return r != 0 ? r : cu.cuMemAlloc(&y, bytes);
  }) == 0;
  ok = ok && log.driver_call(step("cuMemcpyHtoD"), cu, [&] {
    CuResult r = cu.cuMemcpyHtoD(x, in.x.data(), bytes);
    return r != 0 ? r : cu.cuMemsetD32(y, kSentinel, n);
  }) == 0;
  unsigned count = static_cast<unsigned>(n);
  void* params[] = {&x, &y, &in.a, &in.b, &count};
  unsigned blocks = (count + kernel_test::kBlockSize - 1) / kernel_test::kBlockSize;
  ok = ok && log.driver_call(step("cuLaunchKernel"), cu, [&] {
    return cu.cuLaunchKernel(fn, blocks, 1, 1, kernel_test::kBlockSize, 1, 1, 0, nullptr, params, nullptr);
  }) == 0;
  // Errors of the kernel itself surface here, not at the launch.
  ok = ok && log.driver_call(step("cuCtxSynchronize"), cu, [&] { return cu.cuCtxSynchronize(); }) == 0;
  std::vector<float> result(n);
  ok = ok && log.driver_call(step("cuMemcpyDtoH"), cu,
                             [&] { return cu.cuMemcpyDtoH(result.data(), y, bytes); }) == 0;
  if (ok) {
    log.begin(step("check"));
    Stopwatch t;
    auto bad = kernel_test::first_mismatch(in, result);
    Json extra = Json::object();
    extra["elements"] = n;
    extra["seed"] = seed;
    if (bad) {
      extra["detail"] = fmt::format("element {} of {}: expected {:a} ({}), got {:a} ({})", bad->index, n,
                                    bad->expected, bad->expected, bad->got, bad->got);
    } else {
      extra["detail"] = fmt::format("all {} elements equal fma(a, x, b) bit for bit", n);
    }
    log.end(step("check"), "check", bad ? 1 : 0, t.ms(), std::move(extra));
    ok = !bad;
  }
  if (x != 0) cu.cuMemFree(x);
  if (y != 0) cu.cuMemFree(y);
  cu.cuModuleUnload(module);
  return ok;
}

}  // namespace cudiag::child
