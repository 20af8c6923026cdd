#pragma once
// The few facts per layer a person reads first, as short lines. Shared by
// the text report and the other human formats (Markdown, HTML).
#include <string>
#include <vector>

#include "core/json.h"

namespace cudiag {

struct LayerSummary {
  std::string name;
  std::vector<std::string> lines;  // empty when the layer was not collected
};

std::vector<LayerSummary> layer_summaries(const Json& report);

}  // namespace cudiag
