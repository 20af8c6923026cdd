#pragma once
#include "core/json.h"
#include "probes/probe_context.h"

namespace cudiag::probes {

// Layer 1, `host`: OS, kernel, CPU architecture, glibc, the container or WSL2
// the process runs in (each with its evidence), and the allowlisted
// environment variables. Reads files only.
Json probe_host(const ProbeContext& ctx);

// ID, VERSION_ID and PRETTY_NAME of /etc/os-release (else /usr/lib/os-release),
// each a fact. In a container this is the image's OS.
Json probe_os_release(const FsRoot& root);

}  // namespace cudiag::probes
