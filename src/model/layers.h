#pragma once
// The report's layers in diagnosis order: the one list the engine, the
// renderers and the explain command share (schema/report.schema.json holds
// the same top-level keys).
#include <string>
#include <vector>

#include "core/json.h"

namespace cudiag::model {

// The diagnosis order of layers; a finding's layer must be one of these.
const std::vector<std::string>& layer_order();

// Whether the report holds what `layer` was meant to record: present, and
// for the kernel test, run (a `check --deep` under --root says "not run").
bool layer_ran(const Json& report, const std::string& layer);
}  // namespace cudiag::model
