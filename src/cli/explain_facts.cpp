#include "cli/explain_facts.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.h"
#include "explain/signatures.h"
#include "report/assume.h"

namespace cudiag::cli {

namespace {

// "assume:driver" -> "assume:driver (from the pasted text, line 3)" for the
// facts one assumption just added; earlier ones already carry their line.
void label_sources(Json& node, const std::string& plain, const std::string& labelled) {
  if (node.is_object()) {
    for (auto& [k, v] : node.items()) {
      if ((k == "source" || k.ends_with("_source")) && v.is_string() && v.get<std::string>() == plain)
        v = labelled;
      else
        label_sources(v, plain, labelled);
    }
  } else if (node.is_array()) {
    for (auto& v : node) label_sources(v, plain, labelled);
  }
}

// A GPU the reporter named in words is one of theirs, not the list of all of them: the rules must not
// count the GPUs from it ("CUDA_VISIBLE_DEVICES=2" beside "tested on an A100 and a T4" hides nothing).
void mark_named_only(Json& report, const std::string& source) {
  Json& pci = report["kernel_driver"]["pci_devices"];
  if (!pci.is_array() || pci.empty()) return;
  pci.back()["named_only"] = {{"value", true}, {"source", source}};
}

}  // namespace

StatedFacts apply_stated_facts(Json& report, const std::vector<std::string>& assumptions,
                               const std::vector<explain::PastedFact>& facts, const kb::KnowledgeBase& kb) {
  StatedFacts out;
  report::apply_assumptions(report, assumptions, kb);
  for (const auto& f : facts) {
    // The user's own --assume wins over what the pasted text says.
    bool stated = std::any_of(assumptions.begin(), assumptions.end(),
                              [&](const std::string& a) { return a.rfind(f.key + "=", 0) == 0; });
    if (stated) continue;
    Json trial = report;
    try {
      report::apply_assumptions(trial, {f.assumption()}, kb);
    } catch (const InputError& e) {
      out.skipped.push_back(fmt::format("{} (line {}): {}", f.assumption(), f.line, e.what()));
      continue;
    }
    auto source = fmt::format("assume:{} (from the pasted text, line {}: {})", f.key, f.line, f.what);
    label_sources(trial, "assume:" + f.key, source);
    if (f.key == "gpu" && f.prose) mark_named_only(trial, source);
    report = std::move(trial);
    out.applied.push_back(f);
  }
  return out;
}

Json stated_findings(const Json& report, const std::vector<explain::Explanation>& explanations,
                     const kb::KnowledgeBase& kb) {
  const auto& sigs = explain::signatures(kb);
  Json out = Json::array();
  if (!report.contains("findings") || !report["findings"].is_array()) return out;
  for (const auto& f : report["findings"]) {
    auto severity = f.value("severity", "");
    if (severity != "error" && severity != "warning") continue;
    Json x = f;
    // A finding the message is an instance of: a warning becomes an error, and either
    // answers before the message (explain/verdict.h).
    {
      for (const auto& e : explanations) {
        auto sig = std::find_if(sigs.begin(), sigs.end(),
                                [&](const explain::Signature& sg) { return sg.id == e.id; });
        if (sig == sigs.end()) continue;
        if (std::find(sig->confirms.begin(), sig->confirms.end(), f.value("id", "")) == sig->confirms.end())
          continue;
        if (severity == "warning") x["raised_by"] = e.id;
        x["severity"] = "error";
        x["confirmed_by"] = e.id;
        break;
      }
    }
    out.push_back(std::move(x));
  }
  // The findings a message confirms first (the paste shows them happening), then the other errors,
  // then warnings; the diagnosis's layer order within each.
  auto rank = [](const Json& f) {
    if (f.contains("confirmed_by")) return 0;
    return f.value("severity", "") == "error" ? 1 : 2;
  };
  std::stable_sort(out.begin(), out.end(), [&](const Json& a, const Json& b) { return rank(a) < rank(b); });
  return out;
}

}  // namespace cudiag::cli
