#pragma once
// Turns what the user names into inspected files: regular files, directories
// (recursively), Python wheels (.whl zips, read in memory without
// extracting), and an interpreter's site-packages. The one place that walks
// the file system for `cudiag inspect`; the parsers only see bytes.
#include <string>
#include <vector>

#include "inspect/inspect.h"

namespace cudiag::inspect {

// Wheel members are inflated whole (libzip cannot map a compressed member):
// into memory when small, into an unlinked temporary file when large
// (inspect/member_spill.h). Bigger members than this are reported as an
// error rather than read: no real library is 4 GiB.
inline constexpr std::uint64_t kMaxWheelMember = 4ull << 30;

// Inspects each path: a file as is (a wheel by its zip contents), a
// directory recursively in sorted order. Inside directories and wheels only
// regular files that are CUDA-capable binaries are kept, symlinks are not
// followed (no loops, no duplicates) and unreadable entries are skipped; a
// path given explicitly that is missing or not a binary is returned with an
// error.
std::vector<InspectResult> inspect_paths(const std::vector<std::string>& paths,
                                         const InspectOptions& options);

// The members of wheel `path` that are ELF files, archives or fatbins,
// named "<path>!/<member>".
std::vector<InspectResult> inspect_wheel(const std::string& path, const InspectOptions& options);

}  // namespace cudiag::inspect
