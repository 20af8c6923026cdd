#pragma once
// The one answer `cudiag explain` gives first: which layer to fix and what to
// change. It weighs the recognised messages against the diagnosis of the
// stated facts (--assume, a pasted environment dump) with one policy, which
// the command prints and the accuracy corpora score, so what is measured is
// what a user reads. Pure: explanations and findings in, a verdict out.
#include <string>
#include <vector>

#include "core/json.h"
#include "explain/explain.h"
#include "explain/triage.h"

namespace cudiag::explain {

struct Verdict {
  std::string layer;  // "" when nothing was recognised and no finding fails
  // "message" (a recognised message), "facts" (a finding of the stated facts) or "words" (a guess
  // from the words of a text with neither: explain/triage.h)
  std::string from;
  std::string id;       // the signature or finding id it rests on ("words/<component>" for a guess)
  std::string summary;  // the explanation's title or the finding's message
  std::string fix;      // what to change first: the finding's remediation or the most likely cause
  std::vector<kb::Source> sources;  // a guess's: where its fix comes from (a message's are its own)
};

// `findings`: the error and warning findings of the stated facts, errors
// first (cli/explain_facts.h stated_findings). The facts' first error answers
// when there is no recognised message, when the message confirms it, when
// the message is no environment problem or only a symptom (no CUDA device:
// the missing /dev/nvidia* nodes say why), or when it lies in an earlier layer
// than the message's; otherwise the first recognised message answers. A
// message that defers (a wrapper whose details follow, a symptom in the
// reporter's words) comes after the first specific message (explain_text).
Verdict decide(const std::vector<Explanation>& explanations, const Json& findings);

// decide(), and when it has no answer (nothing recognised, no stated fact
// fails), the guess from the words of `text` (explain/triage.h), if any.
Verdict decide_or_guess(std::string_view text, const std::vector<Explanation>& explanations,
                        const Json& findings, const kb::KnowledgeBase& kb);

// The verdict a word guess gives: the component's layer and first change.
Verdict from_words(const WordGuess& guess);

// The position of `layer` in the order diagnosis walks the layers, with
// "container" beside the host; unknown layers last.
int layer_rank(const std::string& layer);

}  // namespace cudiag::explain
