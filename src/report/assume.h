#pragma once
// `--assume KEY=VALUE`: hypothetical facts overlaid on a report (collected,
// loaded, or empty with --no-collect), so the rules answer "will this
// combination work?" before anything is installed. Each overlaid fact has
// the source "assume:KEY"; the report records the list under "assumptions".
//
// Keys: driver=535.104.05 (kernel module, libcuda and NVML, with the CUDA
// version the knowledge base gives for its branch), compat=580.65.06 (a
// forward-compatibility libcuda in use), gpu=sm_90 | 9.0 | "RTX 4090" |
// 0x2684 (repeatable), cuda_runtime=12.8 (repeatable; also cuda=, runtime=),
// container=docker (with GPU access), env.NAME=VALUE (allowlisted variables
// only, e.g. env.CUDA_VISIBLE_DEVICES=), and a library key from the catalog
// (cudnn=9.1.0, nccl=2.21.5, cublas=12.4.5 …).
#include <string>
#include <vector>

#include "core/json.h"
#include "kb/knowledge_base.h"

namespace cudiag::report {

// Throws InputError("--assume …: what is wrong") for an unknown key or value.
void apply_assumptions(Json& report, const std::vector<std::string>& assumptions,
                       const kb::KnowledgeBase& kb);

// The accepted keys, for --help and error messages.
const std::vector<std::string>& assumption_keys();

}  // namespace cudiag::report
