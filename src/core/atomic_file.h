#pragma once
// Output files are written to a temporary file beside the target and renamed
// over it, so a failure never leaves a partial file behind. The temporary is a
// dot-file (`.NAME.tmp.PID`) that directory readers such as NFD and
// node_exporter's textfile collector skip.
#include <string>
#include <string_view>

namespace cudiag {

// Throws InputError naming `path` when it cannot be written.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace cudiag
