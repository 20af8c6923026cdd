#pragma once
// Formats the explanations of `cudiag explain`: text readable at 80 columns,
// or JSON (schema "cudiag.explain/1"). Only formats.
#include <string>
#include <vector>

#include "core/json.h"
#include "explain/explain.h"

namespace cudiag::explain {

struct ExplainResult {
  std::string input;  // "the argument", "standard input", or the --file path
  std::size_t input_lines = 0;
  std::vector<Explanation> explanations;
  // Where the machine-specific lines come from: "collected on this machine",
  // "report <file>", or "" when none were added (--no-collect).
  std::string machine_source;
  const Json* report = nullptr;  // the report used, for the first failing layer
};

std::string render_text(const ExplainResult& result);
Json render_json(const ExplainResult& result);

}  // namespace cudiag::explain
