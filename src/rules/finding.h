#pragma once
// A finding is what a rule concludes. In the report (findings[]) it is:
//   {"id": "driver_api.runtime_needs_newer_driver", "layer": "cuda_runtime",
//    "severity": "error"|"warning"|"info", "message": "one sentence with the versions",
//    "evidence": [{"fact": "cuda_runtime.runtimes[0].runtime_version", "value": ..., "source": ...}],
//    "remediation": "what to change, to what", "docs": [{"url": ..., "section": ...}],
//    "consequence_of": "kernel_driver" (only when this follows from an earlier layer's failure)}
#include <string>
#include <vector>

#include "core/json.h"
// layer_order() and fact_at() are the report model's; rules use them with findings.
#include "model/layers.h"
#include "model/report_path.h"

namespace cudiag::rules {

enum class Severity { kInfo, kWarning, kError };

struct Evidence {
  std::string fact;  // dotted path in the report
  Json value;
  std::string source;
};

struct DocRef {
  std::string url;
  std::string section;
};

struct Finding {
  std::string id;
  std::string layer;
  Severity severity = Severity::kInfo;
  std::string message;
  std::vector<Evidence> evidence;
  std::string remediation;
  std::vector<DocRef> docs;
  // A rule sets this when its error stands on its own even after an earlier
  // layer fails (a CUDA 13 runtime needs a newer driver whether or not the
  // kernel module loads); otherwise the engine marks later errors as
  // consequences of the first failing layer.
  bool independent = false;
  std::string consequence_of;  // set by the engine
};

const char* severity_name(Severity s);
Json finding_to_json(const Finding& f);

// Evidence taken from a fact in the report at `path` ("driver_api.cuInit").
Evidence evidence_from(const Json& report, const std::string& path);

}  // namespace cudiag::rules
