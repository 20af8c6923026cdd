#pragma once
// Small text helpers for parsing /proc, /sys and os-release style files,
// which may hold anything: every function tolerates garbage.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cudiag::machine {

std::string_view trim(std::string_view s);
std::vector<std::string_view> split_lines(std::string_view s);
// KEY=VALUE lines with optional quotes (os-release).
std::map<std::string, std::string> parse_key_values(std::string_view text);
// "Key:   value" lines (/proc/driver/nvidia/gpus/*/information).
std::map<std::string, std::string> parse_colon_fields(std::string_view text);
// Printable ASCII only, at most `max` characters: garbage in /proc stays out of reports.
std::string sanitize(std::string_view s, std::size_t max = 200);

}  // namespace cudiag::machine
