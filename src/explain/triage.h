#pragma once
// The last resort of `cudiag explain`: when a text holds no message cudiag
// knows and the stated facts fail no rule, the component the text names
// beside the words that state its failure points at a layer. What is named
// and what counts as a failure are data (data/kb/triage_terms.json); the
// answer is a guess from words and says so, never a recognised message.
// Pure: text and the knowledge base in, a guess (or none) out.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "kb/knowledge_base.h"

namespace cudiag::explain {

struct WordGuess {
  std::string component;  // the triage_terms entry: "onnxruntime", "container" ...
  std::string layer;
  std::string what;  // "ONNX Runtime's build"
  std::string fix;
  std::string term;              // the component's term that matched (lower-case, without '*')
  std::size_t term_line = 0;     // 1-based
  std::string symptom;           // what the failure words say: "the GPU is not used or not seen"
  std::string symptom_term;      // the failure's word
  std::size_t symptom_line = 0;  // 1-based
  std::vector<kb::Source> sources;
};

// The component named on the last line that states a failure in specific
// words (else in general words: "error", "fails"), or on a line beside it;
// where one line names two components, the one in the earlier layer.
// nullopt when no failure line names a component: a log that says nothing
// wrong gets no guess.
// `table`: a triage_terms table as parsed JSON.
std::optional<WordGuess> guess_from_words(std::string_view text, const Json& table);
inline std::optional<WordGuess> guess_from_words(std::string_view text, const kb::KnowledgeBase& kb) {
  return guess_from_words(text, kb.raw("triage_terms"));
}

// Whether any line of `text` names the triage table's component `id` ("container"): the setting a
// message was seen in, which some machine checks weigh (error 35 in a container).
bool names_component(std::string_view text, const Json& table, std::string_view id);

// Whether any line of `text` states a failure in the triage table's words
// (its symptoms, specific or general): a log that says nothing wrong is no
// failure to compare with reported ones.
bool states_failure(std::string_view text, const Json& table);

// Whether lower-cased `line` holds `term` at word edges; a '*' at an end of
// the term lets that end run into letters, digits or '_'. A directory in the
// path of a source file (".../cuda/containers/../convenience.cuh:68") does not
// count: it names the program's code, not the machine.
bool has_term(std::string_view line, std::string_view term);

}  // namespace cudiag::explain
