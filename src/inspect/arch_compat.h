#pragma once
// Which device code a GPU can load: the binary-compatibility rules for SASS
// and the forward-compatibility rules for PTX, including the 'a' and 'f'
// variants. Sources: CUDA C++ Programming Guide "Binary Compatibility" and
// "Application Compatibility"; the PTX ISA text on 'a' targets quoted in
// llvm/llvm-project PR #74895 ("do not follow the onion layer model"); NVIDIA's
// CUDA 12.9 family-specific architecture post (summarised in
// shared/reference/nvidia-compat.md sections 4 and 5).
//
// Families: every CC with the same major number is one family as far as
// CUDA 13 defines them (10.0/10.3, 11.0, 12.0/12.1), so "later member of the
// family" is "same major, equal or higher minor".
#include "inspect/gpu_arch.h"

namespace cudiag::inspect {

// SASS built for `image` runs natively on a device of compute capability
// `device` (the device's variant is ignored: a GPU is just a CC):
//   sm_XY   -> same major X, device minor >= Y
//   sm_XYf  -> same family (same major), device minor >= Y
//   sm_XYa  -> exactly X.Y
bool sass_runs_on(const GpuArch& image, const GpuArch& device);

// PTX for virtual arch `image` can be JIT-compiled for `device`:
//   compute_XY  -> any CC >= X.Y (onion model, across majors)
//   compute_XYf -> same family, minor >= Y
//   compute_XYa -> exactly X.Y
// The driver must also support the PTX's ISA version; see verdict.h.
bool ptx_jits_for(const GpuArch& image, const GpuArch& device);

// Orders device CCs (ignores variant): 9.0 < 10.0 < 10.3 < 12.0.
bool cc_less(const GpuArch& a, const GpuArch& b);

}  // namespace cudiag::inspect
