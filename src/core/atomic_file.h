#pragma once
// Output files are written to a temporary file beside the target and renamed
// over it, so a failure never leaves a partial file behind. The temporary is
// created with mkstemp (O_CREAT|O_EXCL, mode 0600) as a dot-file,
// ".<name>.XXXXXX", in the target's directory: a symlink planted at a
// predictable name cannot redirect the write, and directory collectors that
// skip dot-files (node_exporter's textfile collector reads only *.prom, NFD
// ignores dot-files) never see a half-written file.
#include <string>
#include <string_view>

namespace cudiag {

// Replaces the regular file at `path` (or creates it) atomically. A file
// that already exists keeps its permission bits (a 0600 file stays 0600); a
// new one gets 0666 minus the umask. Throws InputError naming `path` when it
// cannot be written.
void write_file_atomically(const std::string& path, std::string_view content);

// What `-o PATH` does: a regular file (or a symlink to one) is replaced as
// above; a device, FIFO, socket or terminal (-o /dev/stdout, -o /dev/null, a
// named pipe) is opened and written through, never replaced; a directory is
// an error.
void write_output_file(const std::string& path, std::string_view content);

}  // namespace cudiag
