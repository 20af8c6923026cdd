#include "render/plan_text.h"

#include <fmt/format.h>

namespace cudiag::render {

std::string plan_text(const workflow::Plan& plan, const workflow::FindingChanges& changes) {
  std::string out = fmt::format("Plan: {}\n", plan.change);
  for (const auto& n : plan.notes) out += "  " + n + "\n";
  out += "\nWhat else must move:\n";
  if (plan.also_must_move.empty()) out += "  nothing: the rest of the stack stays compatible\n";
  for (const auto& a : plan.also_must_move) out += "  - " + a + "\n";
  out += "\nOrder, one layer at a time:\n";
  for (std::size_t i = 0; i < plan.order.size(); ++i) out += fmt::format("  {}. {}\n", i + 1, plan.order[i]);
  // Without an overlay (a torch build is not a --assume fact) nothing was re-diagnosed.
  if (!plan.assumptions.empty()) {
    out += "\nDiagnosis with the change overlaid (as --assume):\n";
    if (changes.resolved.empty() && changes.introduced.empty())
      out += "  no error finding appears or goes away\n";
    for (const auto& e : changes.resolved) out += "  resolved: " + e + "\n";
    for (const auto& e : changes.introduced) out += "  new:      " + e + "\n";
  }
  return out;
}

}  // namespace cudiag::render
