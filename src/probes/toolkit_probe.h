#pragma once
#include "core/json.h"
#include "probes/probe_context.h"

namespace cudiag::probes {

// Every CUDA toolkit on the machine (CUDA_HOME, /usr/local/cuda*, nvcc on
// PATH) with its version from version.json, version.txt, pip dist-info
// names, or the version string inside nvcc — read, never run.
Json probe_toolkits(const ProbeContext& ctx);

// "Cuda compilation tools, release 13.0, V13.0.88" inside an nvcc binary -> "13.0.88".
std::string find_nvcc_version(std::string_view bytes);

}  // namespace cudiag::probes
