#include "probes/probe_registry.h"

#include <algorithm>
#include <deque>

namespace cudiag::probes {

namespace {
// Deques: registered_probes() hands out pointers that later registrations must not move.
std::deque<ProbeDef>& file_probes() {
  static std::deque<ProbeDef> probes;
  return probes;
}
std::vector<LayerProbeDef>& layer_probes() {
  static std::vector<LayerProbeDef> probes;
  return probes;
}
}  // namespace

RegisterProbe::RegisterProbe(ProbeDef def) { file_probes().push_back(std::move(def)); }

RegisterLayerProbe::RegisterLayerProbe(LayerProbeDef def) {
  auto& probes = layer_probes();
  probes.push_back(std::move(def));
  std::stable_sort(probes.begin(), probes.end(),
                   [](const LayerProbeDef& a, const LayerProbeDef& b) { return a.order < b.order; });
}

std::vector<const ProbeDef*> registered_probes(ProbeStage stage) {
  std::vector<const ProbeDef*> out;
  for (const auto& p : file_probes())
    if (p.stage == stage) out.push_back(&p);
  std::stable_sort(out.begin(), out.end(),
                   [](const ProbeDef* a, const ProbeDef* b) { return a->order < b->order; });
  return out;
}

std::vector<std::string> registered_probe_keys() {
  std::vector<std::string> keys;
  for (const auto& p : file_probes()) keys.push_back(p.key);
  for (const auto& p : layer_probes()) keys.push_back(p.key);
  return keys;
}

const std::vector<LayerProbeDef>& registered_layer_probes() { return layer_probes(); }

}  // namespace cudiag::probes
