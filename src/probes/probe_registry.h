#pragma once
// The probe registry: each probe registers itself from its own file, so adding
// one touches no list elsewhere (docs/ARCHITECTURE.md, "Adding a probe").
// report/collect.cpp runs them:
//
//   1. the library-backed layers (probes/layer_probe.h, RegisterLayerProbe)
//      plan their child processes, which start at once;
//   2. kEarly file probes (host, kernel_driver), then each library layer's
//      own file reading, then kWhileChildrenRun file probes (frameworks) —
//      all while the children run;
//   3. the library layers finish from their children's answers;
//   4. kAfterChildren file probes, which may read what 1–3 wrote (binaries
//      reads the libraries layer).
//
// Each probe writes one top-level key of the report; its facts must be
// described in schema/report.schema.json (ctest report_paths checks the
// facts real collections write, for every registered key).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/collect_options.h"
#include "core/json.h"
#include "probes/probe_context.h"

namespace cudiag::probes {

enum class ProbeStage { kEarly, kWhileChildrenRun, kAfterChildren };

struct ProbeDef {
  std::string key;  // the report's top-level key it writes
  ProbeStage stage = ProbeStage::kEarly;
  int order = 0;  // within its stage, lowest first
  // Whether the options ask for it; null: always.
  std::function<bool(const CollectOptions&)> enabled;
  std::function<Json(const ProbeContext&, const CollectOptions&, const Json& report)> run;
  // Records timings["<key>_ms"] (the container probe, a few file reads, never did).
  bool timed = true;
};

struct RegisterProbe {
  explicit RegisterProbe(ProbeDef def);
};

// The file probes of one stage, in order.
std::vector<const ProbeDef*> registered_probes(ProbeStage stage);
// The report keys of every registered probe, file-based and library-backed.
std::vector<std::string> registered_probe_keys();

class LayerProbe;
struct LayerProbeDef {
  std::string key;  // its layer: the report key it writes
  int order = 0;    // finish order, lowest first (a layer may read what earlier ones wrote)
  // The order in which start_early runs (the driver API's cuInit, the longest call, first).
  int start_early_rank = 0;
  std::function<std::unique_ptr<LayerProbe>(const CollectOptions&)> make;
};

struct RegisterLayerProbe {
  explicit RegisterLayerProbe(LayerProbeDef def);
};

const std::vector<LayerProbeDef>& registered_layer_probes();  // sorted by order

}  // namespace cudiag::probes
