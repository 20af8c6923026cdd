#pragma once
// Can a GPU run a binary? Per CUDA module (fatbin blob) the driver picks
// SASS that matches the device under the binary-compatibility rules, else
// JIT-compiles the best PTX it may use, else fails with "no kernel image is
// available for execution on the device" (CUDA_ERROR_NO_BINARY_FOR_GPU, 209).
// PTX newer than the driver's PTX ISA fails with "the provided PTX was
// compiled with an unsupported toolchain" (CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
// 222). Rules in arch_compat.h; error codes per the CUDA driver API docs.
#include <optional>
#include <span>
#include <string>

#include "inspect/fatbin.h"
#include "inspect/gpu_arch.h"
#include "inspect/inspect.h"

namespace cudiag::inspect {

enum class VerdictKind {
  kNative,        // a SASS image runs as is
  kJit,           // PTX is JIT-compiled at first launch (costs start-up time)
  kCannotRun,     // neither; `reason` says why
  kNoDeviceCode,  // nothing to run: the file carries no CUDA device code
};

struct Verdict {
  VerdictKind kind = VerdictKind::kNoDeviceCode;
  std::string
      reason;  // one line, e.g. "no SASS for sm_120 (only sm_80 sm_90) and no PTX to JIT-compile (...)"
  std::string image;  // the image that would be used: "sm_86", "compute_90 (PTX ISA 9.0)"
};

// The verdict for one module's entries on a device of compute capability
// `device`. `driver_max_ptx_isa` is the newest PTX ISA the driver can JIT;
// nullopt means unknown, and a PTX fallback is then reported as JIT with the
// ISA it needs.
Verdict verdict(std::span<const FatbinEntry> entries, const GpuArch& device,
                std::optional<PtxIsa> driver_max_ptx_isa);

// The verdict for a whole file: every module that holds loadable code must
// run, so the worst module decides. Modules are the blobs in `.nv_fatbin`
// (or in `__nv_relfatbin` when there is no `.nv_fatbin`, as in -rdc objects);
// the CUDA 13 device-link blob of a non -rdc build holds no kernels and is
// left out when other modules exist.
Verdict file_verdict(const InspectResult& result, const GpuArch& device,
                     std::optional<PtxIsa> driver_max_ptx_isa);

std::string verdict_kind_name(VerdictKind kind);  // "native", "jit", "cannot_run", "no_device_code"

}  // namespace cudiag::inspect
