#pragma once
// The child side of library isolation. `cudiag __probe KIND ARGS...` is how
// cudiag re-executes itself to call into one NVIDIA library; it prints one
// JSON object on stdout and exits. Only this code ever dlopens an NVIDIA
// library, and only in such a child.
#include <functional>
#include <string>
#include <vector>

#include "core/json.h"

namespace cudiag::child {

inline constexpr const char* kChildProbeArg = "__probe";

using ChildProbeFn = std::function<Json(const std::vector<std::string>& args)>;

struct RegisterChildProbe {
  RegisterChildProbe(std::string kind, ChildProbeFn fn);
};

// Runs the child probe named by argv[2]; returns the exit code.
int run_child_probe(int argc, char** argv);

}  // namespace cudiag::child
