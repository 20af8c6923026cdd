#pragma once
// Untrusted input, read and parsed with bounds. A saved report, a lock file,
// a pasted log, a --kb table and the answer cache may be anything: /dev/zero,
// a FIFO nobody writes, a 30,000-deep JSON array, a number beyond double.
// Each is checked before it costs memory or a hang: the file type first
// (regular files; a pipe only where the user handed one over, such as '-' or
// <(cmd)), then the size, then the read itself is capped; JSON is parsed
// with a depth limit and duplicate keys rejected, and every failure is an
// InputError naming the input (exit 2), never a crash.
#include <cstddef>
#include <string>
#include <string_view>

#include "core/json.h"

namespace cudiag {

// Saved reports, logs and lock files: far above any real one (a report with
// --binaries is ~1 MB), far below what would exhaust memory.
inline constexpr std::size_t kMaxInputBytes = 64u << 20;
// JSON nesting: cudiag's own documents are under 12 levels deep.
inline constexpr int kMaxJsonDepth = 128;

enum class PipeInput { kAllowed, kRefused };

// The bytes of the file at `path` ("-": standard input), at most `max_bytes`.
// Refuses directories, devices (/dev/zero), sockets, and FIFOs unless
// `pipes` allows them (a FIFO path is opened without blocking; a refused one
// never hangs). Throws InputError("<path>: ...").
std::string read_input_bytes(const std::string& path, std::size_t max_bytes = kMaxInputBytes,
                             PipeInput pipes = PipeInput::kAllowed);

// Non-throwing form for files cudiag keeps itself (the answer cache): only a
// regular file at most `max_bytes` long; on failure returns false and says
// why in `error` ("" when the file does not exist).
bool read_regular_file(const std::string& path, std::size_t max_bytes, std::string& out, std::string& error);

// Parses untrusted JSON: at most `max_depth` levels of nesting, no duplicate
// key in an object, numbers within double range. Throws InputError("<name>:
// not valid JSON: ...") naming what was wrong.
Json parse_untrusted_json(std::string_view text, std::string_view name, int max_depth = kMaxJsonDepth);

// The inputs parse_untrusted_json() has returned a document for, in order
// ("" when none): a field of an unexpected type met later (nlohmann's
// type_error) is then that input's fault (exit 2), not cudiag's.
std::string untrusted_inputs_read();

}  // namespace cudiag
