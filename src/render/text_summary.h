#pragma once
// The few facts per layer a person reads first, as short lines. Shared by
// the text report and the other human formats (Markdown, HTML).
#include <string>
#include <vector>

#include "core/json.h"

namespace cudiag::render {

struct SummaryLine {
  std::string text;
  int depth = 0;     // 0: a line of the layer; 1, 2: about the nearest line above it with depth - 1
  std::string mark;  // "" none; else the line's own status: ok | warning | error | unknown
};

struct LayerSummary {
  std::string name;
  std::vector<SummaryLine> lines;  // empty when the layer was not collected
};

std::vector<LayerSummary> layer_summaries(const Json& report);

// The `frameworks` layer's lines (src/render/frameworks_summary.cpp): per
// Python environment, each framework with its version, the CUDA it was built
// for, its GPU architectures and the CUDA libraries the loader would give it;
// a framework or library named by a finding's evidence carries that finding's
// worst severity as its mark.
std::vector<SummaryLine> framework_summary_lines(const Json& report);

}  // namespace cudiag::render
