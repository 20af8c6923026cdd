#pragma once
#include "core/json.h"
#include "probes/probe_context.h"

namespace cudiag::probes {

// Layer 2, `kernel_driver`: the NVIDIA kernel module and the GPUs, read
// without any NVIDIA library: /proc/driver/nvidia, /sys/module, /proc/modules,
// PCI sysfs (so a GPU with no driver is still seen) and the device nodes.
Json probe_kernel_driver(const ProbeContext& ctx);

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug ..." -> "535.104.05"
std::string parse_nvrm_version(std::string_view text, bool* open_module);

}  // namespace cudiag::probes
