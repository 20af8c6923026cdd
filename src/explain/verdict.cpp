#include "explain/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace cudiag::explain {

int layer_rank(const std::string& layer) {
  // The report's layers with the container, which runs on the host and decides
  // what the layers below it see, right after the host. One difference from
  // model::layer_order() stays on purpose until the corpora say otherwise:
  // binaries ranks after cuda_runtime here (as explain's corpora were first
  // scored), after frameworks there. Unknown layers rank last.
  static constexpr std::array<std::string_view, 9> kOrder = {"host",     "container",  "kernel_driver",
                                                             "nvml",     "driver_api", "cuda_runtime",
                                                             "binaries", "libraries",  "frameworks"};
  for (std::size_t i = 0; i < kOrder.size(); ++i) {
    if (layer == kOrder[i]) return static_cast<int>(i);
  }
  return static_cast<int>(kOrder.size());
}

namespace {

Verdict from_message(const Explanation& e) {
  Verdict v;
  v.layer = e.machine_layer.empty() ? e.layer : e.machine_layer;
  v.from = "message";
  v.id = e.id;
  v.summary = e.title;
  if (!e.machine_fix.empty())
    v.fix = e.machine_fix;
  else if (!e.causes.empty())
    v.fix = e.causes.front();
  return v;
}

// A finding's layer among explain's: the report has no container layer, so its host rules about
// the container's GPU plumbing (ids host.container_*: started without --gpus) are the container's.
std::string layer_of_finding(const Json& f) {
  auto layer = f.value("layer", "");
  return layer == "host" && f.value("id", "").starts_with("host.container_") ? "container" : layer;
}

Verdict from_finding(const Json& f) {
  Verdict v;
  v.layer = layer_of_finding(f);
  v.from = "facts";
  v.id = f.value("id", "");
  v.summary = f.value("message", "");
  v.fix = f.value("remediation", "");
  return v;
}

// Findings that a build lacks kernels for the GPU: they fail a kernel launch ("no kernel image"),
// never CUDA's initialisation, whatever the symptom.
bool about_missing_kernels(const Json& f) {
  auto id = f.value("id", "");
  return id == "frameworks.no_kernel_for_gpu" || id.starts_with("libraries.binary_arch_");
}

}  // namespace

Verdict decide(const std::vector<Explanation>& explanations, const Json& findings) {
  const Json* first = findings.is_array() && !findings.empty() ? &findings[0] : nullptr;
  if (explanations.empty()) return first ? from_finding(*first) : Verdict{};
  // explain_text already put messages that defer after the first specific one.
  const Explanation& message = explanations.front();
  if (!first || first->value("severity", "") != "error") return from_message(message);
  bool symptom_explained = message.symptom && !(message.before_kernels && about_missing_kernels(*first));
  bool facts_win = first->contains("confirmed_by") || !message.environment || symptom_explained ||
                   layer_rank(layer_of_finding(*first)) < layer_rank(message.layer);
  return facts_win ? from_finding(*first) : from_message(message);
}

Verdict from_words(const WordGuess& guess) {
  Verdict v;
  v.layer = guess.layer;
  v.from = "words";
  v.id = "words/" + guess.component;
  v.summary = fmt::format(
      "A guess: no message here is one cudiag knows, but line {} names {} (\"{}\") beside words of a "
      "failure on line {} (\"{}\": {}).",
      guess.term_line, guess.what, guess.term, guess.symptom_line, guess.symptom_term, guess.symptom);
  v.fix = guess.fix;
  v.sources = guess.sources;
  return v;
}

std::vector<SimilarReport> similar_reports_for(std::string_view text, const kb::KnowledgeBase& kb,
                                               std::string_view exclude_url) {
  if (!states_failure(text, kb.raw("triage_terms"))) return {};
  return ReportIndex::builtin().nearest(text, kSimilarVoters, exclude_url);
}

std::optional<Verdict> from_similar(const std::vector<SimilarReport>& similar) {
  auto a = answer_from_similar(similar);
  if (!a) return std::nullopt;
  const SimilarReport& r = *a->report;
  Verdict v;
  v.layer = a->layer;
  v.from = "similar";
  v.id = "similar/" + r.url;
  std::string shared;
  for (const auto& t : r.shared) shared += (shared.empty() ? "\"" : ", \"") + t + "\"";
  v.summary = fmt::format(
      "No message here is one cudiag knows, but {} of the {} reported failures most like this text were "
      "fixed in the {} layer; the nearest of them ({:.2f} similar, sharing {}) was fixed so:",
      a->agreeing, std::min(similar.size(), kSimilarVoters), a->layer, r.similarity, shared);
  v.fix = r.fix;
  v.sources.push_back({r.url, "the fix its thread confirmed"});
  return v;
}

Verdict decide_or_guess(std::string_view text, const std::vector<Explanation>& explanations,
                        const Json& findings, const kb::KnowledgeBase& kb,
                        const std::vector<SimilarReport>& similar) {
  Verdict v = decide(explanations, findings);
  if (!v.layer.empty()) return v;
  if (auto guess = guess_from_words(text, kb)) return from_words(*guess);
  if (auto s = from_similar(similar)) return *s;
  return v;
}

}  // namespace cudiag::explain
