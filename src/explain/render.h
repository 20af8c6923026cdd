#pragma once
// Formats the explanations of `cudiag explain`: text readable at 80 columns,
// or JSON (schema "cudiag.explain/1"). Only formats.
#include <string>
#include <vector>

#include "core/json.h"
#include "explain/explain.h"
#include "explain/similar_reports.h"
#include "explain/verdict.h"

namespace cudiag::explain {

struct ExplainResult {
  std::string input;  // "the argument", "standard input", or the --file path
  std::size_t input_lines = 0;
  std::vector<Explanation> explanations;
  // Where the machine-specific lines come from: "collected on this machine",
  // "report <file>", or "" when none were added (--no-collect).
  std::string machine_source;
  const Json* report = nullptr;  // the report used, for the first failing layer
  // Facts stated by --assume or read from the pasted text ("driver=535.104.05 (line 3: nvidia-smi header)"),
  // the pasted ones the rules could not take, and the diagnosis of them (error and warning findings).
  std::vector<std::string> stated;
  std::vector<std::string> skipped;
  Json findings = Json::array();
  bool collected = false;  // the report is this machine's (collected or --report), not only stated facts
  Verdict verdict;         // the answer printed first (explain/verdict.h)
  // Reported failures like the text, most similar first (those at least kMinShownSimilarity, at most
  // kSimilarShown): a user reads the fixes real threads confirmed whatever the verdict rests on.
  std::vector<SimilarReport> similar;
};

std::string render_text(const ExplainResult& result);
Json render_json(const ExplainResult& result);

}  // namespace cudiag::explain
