#pragma once
// The `--assume` keys for every layer's state beyond the driver, GPU and
// library versions of assume.cpp: framework builds (torch=2.1.0+cu121), the
// kernel module and device nodes, the user-space driver apart from the
// module, libcuda's location and LD_LIBRARY_PATH, the toolkit (nvcc,
// CUDA_HOME), the OS, WSL 2, Docker Desktop and a container without the
// NVIDIA runtime. Each fact has the source "assume:KEY", like the others, so
// the rules treat a stated fact exactly as a collected one.
#include <string>
#include <vector>

#include "core/json.h"
#include "kb/knowledge_base.h"

namespace cudiag::report {

// Applies KEY=VALUE when KEY is one of this file's keys and returns true;
// false for a key it does not know. Throws InputError for a bad value.
bool apply_layer_assumption(Json& report, const std::string& key, const std::string& value,
                            const kb::KnowledgeBase& kb);

// This file's keys, for --help and the unknown-key message.
const std::vector<std::string>& layer_assumption_keys();

}  // namespace cudiag::report
