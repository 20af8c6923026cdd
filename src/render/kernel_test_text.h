#pragma once
// The kernel test's text form: one line per step with ✓/✗ and its time, then
// PASS or the first failing step. Printed by `cudiag test` and by the text
// report of any report that holds a kernel test (`check --deep`, `analyze`).
#include <string>

#include "core/json.h"

namespace cudiag::render {

// `section` is a report's `kernel_test` value (src/kernel_test/run.cpp writes it).
std::string render_kernel_test_text(const Json& section, bool color);

// The text form of the report's `requirements` (check --require): one line each.
std::string render_requirements_text(const Json& requirements);

}  // namespace cudiag::render
