#pragma once
// Scoring shared by the corpus tests (explain_accuracy_test.cpp, in-sample) and
// the held-out test (explain_heldout_test.cpp, out-of-sample): what `cudiag
// explain` answers for a case, and the per-layer tally printed in CI.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "cli/explain_facts.h"
#include "core/json.h"
#include "explain/explain.h"
#include "explain/pasted_facts.h"
#include "explain/verdict.h"
#include "kb/knowledge_base.h"
#include "report/collect.h"
#include "rules/engine.h"

namespace cudiag::explain::scoring {

inline Json load(const char* name) {
  std::ifstream in(std::string(CUDIAG_TEST_DIR) + "/unit/explain/" + name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

inline std::string text_of(const Explanation& e) {
  std::string t = e.title + "\n" + e.meaning + "\n";
  for (const auto& x : e.causes) t += x + "\n";
  for (const auto& x : e.checks) t += x + "\n";
  for (const auto& x : e.notes) t += x + "\n";
  for (const auto& x : e.machine) t += x + "\n";
  return t;
}

struct Answer {
  std::string layer;
  std::string text;  // everything the answer says, to look for the remedy in
};

// The reported failures `cudiag explain` shows and weighs for a case, its own
// thread left out: the index is made from these corpora, and a case must not
// find itself.
inline std::vector<SimilarReport> similar_to(const std::string& text, const std::string& own_url, Answer& a) {
  auto similar = similar_reports_for(text, kb::KnowledgeBase::builtin(), own_url);
  std::size_t shown = 0;
  for (const auto& s : similar)
    if (s.similarity >= kMinShownSimilarity && shown++ < kSimilarShown) a.text += s.fix + "\n";
  return similar;
}

// What `cudiag explain --file` answers for a pasted body: the first error the
// rules find from the pasted facts, else the first recognised message, else
// the reported failures most like it.
inline Answer answer(const std::string& text, bool pasted, const std::string& own_url) {
  const auto& kb = kb::KnowledgeBase::builtin();
  ExplainOptions options;
  options.require_context = pasted;
  auto found = explain_text(text, kb, options);
  Answer a;
  for (const auto& e : found) a.text += text_of(e);
  auto similar = similar_to(text, own_url, a);
  if (!pasted) {
    // A message alone: no report, only the fixes the message and the knowledge base give.
    add_message_fixes(found, kb);
    for (const auto& e : found) a.text += e.machine_fix + "\n";
    auto v = decide_or_guess(text, found, {}, kb, similar);
    a.text += v.fix + "\n";
    a.layer = v.layer;
    return a;
  }
  Json report = report::new_report();
  report["collected"] = false;
  auto facts = read_pasted_facts(text);
  cli::apply_stated_facts(report, {}, facts, kb);
  rules::attach_diagnosis(report, rules::diagnose(report, kb));
  add_machine_lines(found, report, kb);
  for (const auto& e : found) {
    for (const auto& m : e.machine) a.text += m + "\n";
    a.text += e.machine_fix + "\n";
  }
  auto findings = cli::stated_findings(report, found, kb);
  for (const auto& f : findings) a.text += f.value("message", "") + "\n" + f.value("remediation", "") + "\n";
  // The answer the command prints first (explain/verdict.h).
  auto v = decide_or_guess(text, found, findings, kb, similar);
  a.text += v.fix + "\n";
  a.layer = v.layer;
  return a;
}

struct Tally {
  int right = 0;
  int total = 0;
};

// Right layer and the expected remedy word; `layer_only` (optional) counts
// the cases whose layer alone is right.
inline double score(const Json& cases, bool pasted, const char* corpus, Tally* layer_only = nullptr) {
  std::map<std::string, Tally> per_layer;
  Tally all;
  for (const auto& c : cases) {
    auto want = c["expect_layer"].get<std::string>();
    auto remedy = c.value("expect_remedy", "");
    auto a = answer(c["text"].get<std::string>(), pasted, c["source"].get<std::string>());
    if (layer_only) {
      ++layer_only->total;
      if (a.layer == want) ++layer_only->right;
    }
    bool ok = a.layer == want && !remedy.empty() && lower(a.text).find(lower(remedy)) != std::string::npos;
    auto& t = per_layer[want];
    ++t.total;
    ++all.total;
    if (ok) {
      ++t.right;
      ++all.right;
    } else {
      // Printed, not failed: the corpus is scored as a whole.
      std::cout << corpus << " miss: " << c["source"].get<std::string>() << ": answered layer '" << a.layer
                << "', wanted '" << want << "' with remedy '" << remedy << "'\n";
    }
  }
  std::string table = fmt::format("{} accuracy (right layer and the expected remedy):\n", corpus);
  for (const auto& [layer, t] : per_layer)
    table +=
        fmt::format("  {:<14} {:>3}/{:<3} {:5.1f} %\n", layer, t.right, t.total, 100.0 * t.right / t.total);
  table += fmt::format("  {:<14} {:>3}/{:<3} {:5.1f} %\n", "all", all.right, all.total,
                       100.0 * all.right / std::max(1, all.total));
  std::cout << table;
  return all.total ? static_cast<double>(all.right) / all.total : 0.0;
}

}  // namespace cudiag::explain::scoring
