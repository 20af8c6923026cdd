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
#include "explain/similar_reports.h"
#include "explain/triage.h"

namespace cudiag::explain {

struct Verdict {
  std::string layer;  // "" when nothing was recognised and no finding fails
  // "message" (a recognised message), "facts" (a finding of the stated facts), "similar" (the
  // reported failures most like a text with neither: explain/similar_reports.h) or "words" (a guess
  // from the words of a text with none of these: explain/triage.h)
  std::string from;
  std::string id;       // the signature or finding id it rests on ("similar/<url>", "words/<component>")
  std::string summary;  // the explanation's title or the finding's message
  std::string fix;      // what to change first: the finding's remediation or the most likely cause
  std::vector<kb::Source> sources;  // where a guess's or a similar report's fix comes from
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
// fails), the guess from the words of `text` (explain/triage.h), else the
// layer the reported failures most like the text point at (`similar`:
// ReportIndex::nearest, most similar first), if any. The word guess goes
// first because, scored both ways, it was right more often where both
// answered: on the corpora with each case's own thread left out (852 against
// 840 of 1293) and on sets #51-#86 scored as they were before being read (68
// against 64 of 226).
Verdict decide_or_guess(std::string_view text, const std::vector<Explanation>& explanations,
                        const Json& findings, const kb::KnowledgeBase& kb,
                        const std::vector<SimilarReport>& similar = {});

// The reported failures most like `text` (ReportIndex::builtin().nearest, kSimilarVoters of them),
// or none when the text states no failure in the triage table's words (states_failure): a healthy
// log resembles many reports and must answer nothing. `exclude_url`: as for nearest().
std::vector<SimilarReport> similar_reports_for(std::string_view text, const kb::KnowledgeBase& kb,
                                               std::string_view exclude_url = {});

// The verdict the nearest reported failures give, or nullopt (answer_from_similar).
std::optional<Verdict> from_similar(const std::vector<SimilarReport>& similar);

// The verdict a word guess gives: the component's layer and first change.
Verdict from_words(const WordGuess& guess);

// The position of `layer` in the order diagnosis walks the layers, with
// "container" beside the host; unknown layers last.
int layer_rank(const std::string& layer);

}  // namespace cudiag::explain
