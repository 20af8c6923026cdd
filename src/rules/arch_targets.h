#pragma once
// The device code a probe recorded as an "architectures" object
// ({"sass": ["sm_80", ...], "ptx": [{"arch": "compute_90", "ptx_isa": "8.4"}]},
// written by probes/frameworks/framework_common.cpp binary_json for framework binaries
// and for the `binaries` key), turned back into fatbin entries so the
// inspector's pure verdict code (inspect/verdict.h) can judge it; and the
// newest PTX ISA the host driver JIT-compiles. Shared by the frameworks and
// binary_arch rules.
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "inspect/fatbin.h"
#include "inspect/gpu_arch.h"
#include "kb/knowledge_base.h"
#include "rules/rule_support.h"

namespace cudiag::rules {

// Appends one entry per arch name in `architectures` (names that do not parse
// are skipped) and each name to `listing` ("sm_80 sm_90 compute_90").
void append_arch_entries(const Json& architectures, std::vector<inspect::FatbinEntry>& entries,
                         std::string& listing);

// One entry for an arch name ("sm_90a", "compute_90"), nullopt when it does not parse.
std::optional<inspect::FatbinEntry> arch_entry(const std::string& name,
                                               const std::optional<std::string>& ptx_isa);

// The newest PTX ISA the driver's CUDA version JIT-compiles (knowledge base
// table ptx_isa), nullopt when the driver's CUDA version is unknown.
std::optional<inspect::PtxIsa> driver_max_ptx_isa(const HostDriver& driver, const kb::KnowledgeBase& kb);

// A device of the GPU's compute capability (no variant).
inspect::GpuArch device_arch(const Version& cc);

}  // namespace cudiag::rules
