#pragma once
// The one timestamp format cudiag writes: reports' collected_at and the
// answer cache's "at", ISO 8601 in UTC to the second ("2026-12-03T11:31:05Z").
#include <string>

namespace cudiag {

std::string utc_now();

}  // namespace cudiag
