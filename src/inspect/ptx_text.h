#pragma once
// The head of a PTX module: `.version X.Y` then `.target sm_XX[a|f][, ...]`,
// after blank lines and comments (nvcc's fatbinary blanks the leading comment
// block; nvfatbin may drop `.version` altogether). PTX ISA spec, "Directives:
// .version, .target".
#include <optional>
#include <string>
#include <string_view>

#include "inspect/gpu_arch.h"

namespace cudiag::inspect {

struct PtxHead {
  std::optional<PtxIsa> version;  // absent when there is no `.version` line
  std::string target;             // ".target" operands as written: "sm_90", "sm_100a, debug"
};

// Scans directives up to the first one that is neither `.version` nor
// `.target`. Tolerates a head cut anywhere (it is usually a decompressed prefix).
PtxHead parse_ptx_head(std::string_view text);

}  // namespace cudiag::inspect
