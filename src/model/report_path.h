#pragma once
// A place in the report named by a dotted path ("driver_api.cuInit",
// "cuda_runtime.runtimes[2].runtime_version"): the one way code outside the
// model addresses the report. Every literal path in src/ is checked against
// schema/report.schema.json by tests/schema/report_paths_test.py.
#include <string>

#include "core/json.h"

namespace cudiag::model {

// The node (a fact object {value, source}, or any JSON) at `path`, or null.
const Json& fact_at(const Json& report, const std::string& path);

}  // namespace cudiag::model
