#pragma once
// The format of framework_matrix's torch `arch_lists` values, PyTorch's own
// TORCH_CUDA_ARCH_LIST: "5.0;6.0;7.0;7.5;8.0;8.6;9.0;12.0+PTX" (+PTX: that
// architecture's PTX is embedded too). Read by `--assume torch` and the
// frameworks rules.
#include <string_view>
#include <vector>

#include "core/version.h"

namespace cudiag::kb {

struct TorchArch {
  Version cc;        // 8.6
  bool ptx = false;  // "+PTX"
};

std::vector<TorchArch> parse_torch_arch_list(std::string_view list);

}  // namespace cudiag::kb
