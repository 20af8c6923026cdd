#pragma once
// The environment variables whose values cudiag may show: the environment
// reader (machine/environment) keeps only these, and the output writer's
// redaction (render/redact) cuts a saved report's host.environment back to
// them. A list, no reading, so both may use it.
#include <string_view>

namespace cudiag {

// Variables whose values may appear in a report. Everything else is never printed.
bool is_allowlisted_variable(std::string_view name);
// Variables nvidia/cuda and NGC images set to describe themselves (versions
// and package names, never secrets); allowlisted, and read by the container probe.
bool is_image_identity_variable(std::string_view name);

}  // namespace cudiag
