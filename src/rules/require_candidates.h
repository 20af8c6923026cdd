#pragma once
// The values an unknown property could take that can change a
// requirement's answer: every value the requirements mention, and one on
// either side of each. Real CUDA versions and compute capabilities are
// "M.m", real driver versions have up to three parts, so the neighbours are
// chosen in those forms.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudiag::rules::detail {

// Factor values per lower-cased property name, as libnvidia-container lexes them.
std::map<std::string, std::vector<std::string>> mentioned_values(
    const std::vector<std::string>& requirements);

std::vector<std::string> major_minor_candidates(const std::vector<std::string>& mentioned);
std::vector<std::string> driver_candidates(const std::vector<std::string>& mentioned);
// A brand no requirement names, standing for all of them.
inline constexpr const char* kOtherBrand = "\x01other";
std::vector<std::string> brand_candidates(const std::vector<std::string>& mentioned);

// Value, or every candidate when unknown.
std::vector<std::optional<std::string>> choices(const std::optional<std::string>& known,
                                                const std::vector<std::string>& candidates);

}  // namespace cudiag::rules::detail
