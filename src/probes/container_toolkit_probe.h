#pragma once
// host.nvidia_container_toolkit: which NVIDIA Container Toolkit the host
// has and the mode its runtime runs in, because since v1.18.0 the runtime's
// default (mode = "auto") uses jit-cdi, which checks no NVIDIA_REQUIRE_*.
// Reads /etc/nvidia-container-runtime/config.toml (the mode) and the dpkg
// status file (the package version) through FsRoot; runs nothing.
#include "core/fsroot.h"
#include "core/json.h"

namespace cudiag::probes {

Json probe_container_toolkit(const FsRoot& root);

}  // namespace cudiag::probes
