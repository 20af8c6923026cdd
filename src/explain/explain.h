#pragma once
// The explain engine: text (a pasted message or a whole log) + the knowledge
// base (+ optionally a cudiag report of this machine) -> explanations. Pure:
// no I/O, no clock, so every answer can be tested from fixed text.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "explain/signatures.h"
#include "kb/knowledge_base.h"

namespace cudiag::explain {

// One value taken from (or derived from) the message: "found" = "11040".
struct Value {
  std::string name;
  std::string text;
};

// An API error the message stands for, resolved in error_codes.
struct ResolvedError {
  std::string api;
  long code = 0;
  std::string name;
  std::string meaning;
  std::string note;
  std::string layer;  // the table's layer for it, or "" (then the API's)
};

struct Explanation {
  std::string id;          // the signature whose text explains it
  std::string matched_by;  // the signature that matched (a generic one resolved to `id`, or `id`)
  std::string layer;
  std::string title;
  std::string meaning;
  std::vector<std::string> causes;  // most likely first
  std::vector<std::string> checks;
  bool environment = true;      // false: not an environment problem
  bool symptom = false;         // a symptom several layers cause: a failing stated fact answers first
  bool before_kernels = false;  // a symptom from before any kernel launch (see Signature)
  bool defers = false;          // a later specific message in the text answers first
  int priority = 50;            // the signature's: among messages that defer, the higher answers first
  bool generic = false;         // matched as a bare error name or number
  bool in_container = false;    // the text names a container (triage_terms' container terms)
  std::vector<Value> values;    // from the message, in capture order, then derived ones
  std::vector<std::string>
      notes;  // what the values mean ("found version 11040: the driver supports CUDA 11.4")
  std::vector<ResolvedError> errors;
  std::string matched_text;        // the first match, as it appears in the input
  std::vector<std::size_t> lines;  // 1-based lines of the input where it appears
  std::size_t occurrences = 0;
  std::vector<std::string> machine;  // lines about this machine (empty without a report)
  // What to change, computed from the machine's facts (this GPU's sm_XY, the driver this
  // runtime needs); when set, the verdict's fix instead of the most likely cause's prose.
  std::string machine_fix;
  std::string machine_layer;  // the layer the machine's facts put it in, when it differs from the message's
  std::vector<kb::Source> sources;
  kb::Confidence confidence = kb::Confidence::kConfirmed;
};

struct ExplainOptions {
  // A generic signature with a "context" list only counts on a line that
  // contains one of its words. A single message the user typed is on
  // purpose, so the command waives this for its argument; a log keeps it.
  bool require_context = true;
};

// Every recognised message in `text`, in the order of first appearance (those that defer, wrappers
// and symptoms in words, after the others);
// the same message on several lines is one explanation with its lines.
std::vector<Explanation> explain_text(std::string_view text, const kb::KnowledgeBase& kb,
                                      const ExplainOptions& options = {});

// Adds the machine-specific lines of each explanation from `report` (a
// cudiag.report/1 document, collected or loaded).
void add_machine_lines(std::vector<Explanation>& explanations, const Json& report,
                       const kb::KnowledgeBase& kb);

// Adds the fixes that follow from a message alone and the knowledge base, for when
// there is no report to read (explain --no-collect with nothing stated): an
// architecture nvcc rejects because the toolkits dropped it, or "native".
void add_message_fixes(std::vector<Explanation>& explanations, const kb::KnowledgeBase& kb);

// Value `name` of an explanation, or "" when it has none.
std::string value_of(const Explanation& e, std::string_view name);

}  // namespace cudiag::explain
