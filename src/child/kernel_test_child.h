#pragma once
// Child side of `cudiag test`: the CUDA driver API calls that launch the test
// kernel, and the step log the children stream to the parent. Each step is
// printed as it begins and as it ends (one JSON object a line, flushed), so
// when a call hangs or crashes the child, the parent still knows every step
// before it and which call never returned (kernel_test/child_log.h reads it).
#include <cstdint>
#include <optional>
#include <string>

#include "child/dl.h"
#include "core/json.h"
#include "kernel_test/kernel_spec.h"

namespace cudiag::child {

using CuResult = int;
using CuDevicePtr = unsigned long long;

// The driver API entry points the kernel test calls, by their ABI names
// (cuda.h maps cuMemAlloc to cuMemAlloc_v2 and so on; the unversioned
// symbols are the old 32-bit ABI).
struct CudaApi {
  CuResult (*cuInit)(unsigned) = nullptr;
  CuResult (*cuDriverGetVersion)(int*) = nullptr;
  CuResult (*cuDeviceGetCount)(int*) = nullptr;
  CuResult (*cuDeviceGet)(int*, int) = nullptr;
  CuResult (*cuDeviceGetName)(char*, int, int) = nullptr;
  CuResult (*cuDeviceGetAttribute)(int*, int, int) = nullptr;
  CuResult (*cuDeviceGetPCIBusId)(char*, int, int) = nullptr;
  CuResult (*cuDevicePrimaryCtxRetain)(void**, int) = nullptr;
  CuResult (*cuCtxSetCurrent)(void*) = nullptr;
  CuResult (*cuCtxSynchronize)() = nullptr;
  CuResult (*cuModuleLoadData)(void**, const void*) = nullptr;
  CuResult (*cuModuleGetFunction)(void**, void*, const char*) = nullptr;
  CuResult (*cuModuleUnload)(void*) = nullptr;
  CuResult (*cuMemAlloc)(CuDevicePtr*, std::size_t) = nullptr;
  CuResult (*cuMemFree)(CuDevicePtr) = nullptr;
  CuResult (*cuMemcpyHtoD)(CuDevicePtr, const void*, std::size_t) = nullptr;
  CuResult (*cuMemcpyDtoH)(void*, CuDevicePtr, std::size_t) = nullptr;
  CuResult (*cuMemsetD32)(CuDevicePtr, unsigned, std::size_t) = nullptr;
  CuResult (*cuLaunchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             void*, void**, void**) = nullptr;
  CuResult (*cuGetErrorName)(CuResult, const char**) = nullptr;

  // Resolves every symbol; returns the first missing one's name, or "".
  std::string resolve(const Library& lib);
};

// Prints the step records of one scope ("driver", "device", "nvrtc").
class StepLog {
 public:
  StepLog(std::string scope, int device = -1) : scope_(std::move(scope)), device_(device) {}

  void begin(const std::string& step) const;
  // `api` names the error table of `code` ("driver", "nvrtc", "check").
  void end(const std::string& step, const std::string& api, long code, double ms,
           Json extra = Json::object()) const;
  void skip(const std::string& step, const std::string& reason) const;
  // A CUDA driver call: begin, call, end; returns its result.
  template <typename Fn>
  CuResult driver_call(const std::string& step, const CudaApi& cu, Fn&& fn) const {
    begin(step);
    Stopwatch t;
    CuResult r = fn();
    double ms = t.ms();
    Json extra = Json::object();
    const char* name = nullptr;
    if (r != 0 && cu.cuGetErrorName != nullptr && cu.cuGetErrorName(r, &name) == 0 && name != nullptr) {
      extra["library_error_name"] = name;
    }
    end(step, "driver", r, ms, std::move(extra));
    return r;
  }
  void event(Json record) const;  // any other record (a device's identity, a version)

 private:
  std::string scope_;
  int device_;
};

// On the current context: loads `image` (PTX text, cubin or fatbin), launches
// the kernel over fresh random inputs, copies y back and checks every
// element. Steps are named "<path> <call>" ("jit cuModuleLoadData"). True
// when every element matched.
bool run_axpy(const CudaApi& cu, const StepLog& log, const std::string& path, const void* image,
              std::uint64_t seed);

// Steps cuDeviceGet(ordinal); on success, a "device" record with its name,
// compute capability and PCI bus id. nullopt when it failed.
std::optional<int> get_device(const CudaApi& cu, const StepLog& log, int ordinal);

// The device's primary context made current: cuDevicePrimaryCtxRetain, cuCtxSetCurrent.
bool make_context_current(const CudaApi& cu, const StepLog& log, int device);

// "9.0" from the device's compute capability attributes; "" when unknown.
std::string compute_capability(const CudaApi& cu, int device);

}  // namespace cudiag::child
