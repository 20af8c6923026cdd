#pragma once
// Ways to show an InspectResult: the one-line summary, the full JSON, and
// cuobjdump's `--list-elf --list-ptx` text (used to compare with cuobjdump
// exactly, and for users who grep cuobjdump output).
#include <string>

#include "core/json.h"
#include "inspect/inspect.h"

namespace cudiag::inspect {

// "SASS sm_75 sm_80 sm_90 · PTX compute_90 (ISA 9.0) · 4 entries, zstd"
// or "no CUDA device code".
std::string summary_line(const InspectResult& result);

// Every entry and the file's dynamic dependencies, as one pretty-printed JSON
// object (2-space steps, the layout nlohmann's dump(2) gives), appended to
// `out` as if nested `indent` spaces deep: lines after the first are indented
// by `indent` more. `extra` members (an object, e.g. the verdicts) follow the
// file's own. Stable keys. Written directly rather than through a Json tree:
// `cudiag inspect --format json` on CUDA 13's lib64 is 50,000 entries and
// 19 MB of JSON, and building and freeing the tree took longer than reading
// every fatbin header.
void append_json(const InspectResult& result, std::string& out, int indent,
                 const Json& extra = Json::object());

// What `cuobjdump --list-elf --list-ptx <display_path>` prints on stdout.
// Like cuobjdump it lists the linked `.nv_fatbin` code when there is any and
// the relocatable `__nv_relfatbin` code otherwise, leaves out LTO IR, and
// names images "<file name without its last extension>.<n>.<arch>.cubin|ptx",
// with ELF and PTX numbered separately. `member_path` is the archive path
// cuobjdump prints in "member <path>:<member>:" lines (it prints the real path).
std::string cuobjdump_listing(const InspectResult& result, const std::string& display_path,
                              const std::string& member_path = "");

}  // namespace cudiag::inspect
