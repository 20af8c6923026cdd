#pragma once
// The facts the fleet formats (`--format prometheus`, `--format nfd`) turn into
// metrics and node labels, read once from a diagnosed report and the knowledge
// base, so the renderers stay pure formatting: the stack's versions (the same
// keyed values `lock` and `--require` use), each GPU with its architecture, the
// newest CUDA runtime the driver serves without minor-version compatibility,
// the newest PyTorch CUDA variant within it, and the run's time and duration.
//
// It is attached to the report as the top-level key `fleet` just before those
// formats render (cudiag's JSON report does not carry it). docs/fleet.md.
#include <string_view>

#include "core/json.h"

namespace cudiag::kb {
class KnowledgeBase;
}

namespace cudiag::workflow {

// Whether `format` needs the `fleet` key.
bool is_fleet_format(std::string_view format);

// {"stack": {"driver": "535.261.03", "cuda_driver": "12.2", "cudnn": "9.19.0", ...},
//  "gpus": [{"index": 0, "name": ..., "compute_capability": "9.0", "sm": "sm_90", "architecture": "Hopper",
//            "bus_id": ..., "uuid": ...}],
//  "newest_cuda_runtime": "12.2", "torch_cuda_variant": "cu121", "kernel_test": true|false (when it ran),
//  "collected_at_unix": 1764770000, "collect_seconds": 0.08}
// A value that is not known is left out.
Json fleet_view(const Json& report, const kb::KnowledgeBase& kb);

// Adds fleet_view(report) as report["fleet"] when `format` needs it.
void add_fleet_view_for(Json& report, std::string_view format, const kb::KnowledgeBase& kb);

}  // namespace cudiag::workflow
