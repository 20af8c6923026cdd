#pragma once
// `cudiag plan`: what changes if one layer moves, what else must move with it,
// and the order, one layer at a time. The decisions are the rules' own: whether
// a CUDA version runs on a driver is rules/runtime_compat's verdict, and the
// host driver is the report model's (model/host_driver.h). The command overlays
// the change (`assumptions`, as --assume) and re-diagnoses; error_changes()
// compares the two diagnoses.
#include <string>
#include <vector>

#include "core/json.h"

namespace cudiag::kb {
class KnowledgeBase;
}

namespace cudiag::workflow {

// The one layer that moves: exactly one field is set (the command enforces it).
struct PlanRequest {
  std::string driver;  // "570.86.10"
  std::string cuda;    // "12.8"
  std::string torch;   // "2.7.0+cu128" or a plain "2.7.0" (its default PyPI build)
  std::string gpu;     // "RTX 5090" or "sm_120"
};

struct Plan {
  std::string change;                       // "driver 550.54.15 -> 570.86.10"
  std::vector<std::string> notes;           // how the request was read (a plain torch version)
  std::vector<std::string> also_must_move;  // what else the change needs
  std::vector<std::string> order;           // one layer at a time
  std::vector<std::string> assumptions;     // the change as --assume overlays; empty: nothing to overlay
};

// The plan for `request` on the diagnosed `report`. A request the knowledge base cannot read (not a
// version, an unknown GPU, a torch build without CUDA) is an InputError.
Plan plan_change(const Json& report, const kb::KnowledgeBase& kb, const PlanRequest& request);

// Error findings ("id: message") the overlay resolves and introduces.
struct FindingChanges {
  std::vector<std::string> resolved;
  std::vector<std::string> introduced;
};
FindingChanges error_changes(const Json& before, const Json& after);

// `plan --format json`.
Json plan_json(const Plan& plan, const FindingChanges& changes);

}  // namespace cudiag::workflow
