#pragma once
// What a bug report needs first, shared by the Markdown and HTML formats:
// one line each for the OS, GPUs, host driver, container image, frameworks
// and CUDA runtimes, the layers in display order with their status, and each
// layer's facts flattened to "path: value [source]" lines.
#include <string>
#include <vector>

#include "core/json.h"
#include "render/text_summary.h"

namespace cudiag::render {

struct SummaryItem {
  std::string label;  // "OS", "GPU", "Host driver", ...
  std::string text;
};

std::vector<SummaryItem> issue_summary(const Json& report);

struct LayerView {
  std::string name;
  std::string status;  // ok | warning | error | unknown (not collected)
  bool first_failing = false;
  std::vector<SummaryLine> summary;  // the text report's lines for the layer, if any
};

// host, kernel_driver, …, kernel_test, then container when the report has it.
std::vector<LayerView> layer_views(const Json& report);

struct FactLine {
  std::string path;   // "driver_api.cuInit"
  std::string value;  // "CUDA_ERROR_NO_DEVICE (code 100)"
  std::string source;
};

// The facts of one top-level key, at most `limit` lines; `truncated` says
// whether some were left out.
std::vector<FactLine> layer_facts(const Json& report, const std::string& layer, std::size_t limit,
                                  bool& truncated);

// A JSON value as display text: strings as they are, others as compact
// JSON, null as "" (so callers can tell a missing value).
std::string display_text(const Json& v);
// The same for an evidence value, where null is shown as "null".
std::string evidence_text(const Json& v);

}  // namespace cudiag::render
