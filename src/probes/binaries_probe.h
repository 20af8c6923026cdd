#pragma once
// The top-level `binaries` key: which GPU architectures each CUDA library
// instance of the `libraries` layer carries device code for, read from its
// fatbin headers with the static inspector (src/inspect/; the file is mapped,
// never loaded or run). The binary_arch rules (src/rules/binary_arch_rules.cpp)
// check these against the GPUs present.
//
// Not part of the default report: summarising /usr/local/cuda/lib64's
// libraries costs ~140 ms with a warm page cache (docs/ARCHITECTURE.md,
// "The binaries key"), three times the whole default report. `--binaries`
// (report, check, ...) and `check --deep` ask for it.
//
// Shape:
//   "binaries": {"libraries": [
//     {"library": "cudnn", "name": "cuDNN", "instance": 0,
//      "path": "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "real_path": ...,
//      "version": "9.1.0", "loader_pick": true,
//      "files": [binary_json of the instance's file, then of its components]}]}
// A cuDNN 9 instance's kernels live in the libcudnn_*.so.<major> beside it
// (which the shim dlopens through RUNPATH $ORIGIN), so those are its
// components; every other library is one file. CUDA runtimes are not listed:
// libcudart carries no device code (CUDA 13.0's holds no fatbin at all).
#include "core/json.h"
#include "probes/probe_context.h"

namespace cudiag::probes {

// Reads `report["libraries"]`, so it runs after the libraries layer finished.
Json probe_binaries(const ProbeContext& ctx, const Json& report);

}  // namespace cudiag::probes
