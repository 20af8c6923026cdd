#pragma once
// `cudiag plan`'s text output (workflow/plan.h decides; this formats).
#include <string>

#include "workflow/plan.h"

namespace cudiag::render {

std::string plan_text(const workflow::Plan& plan, const workflow::FindingChanges& changes);

}  // namespace cudiag::render
