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

namespace cudiag::explain {

struct Verdict {
  std::string layer;    // "" when nothing was recognised and no finding fails
  std::string from;     // "message" (a recognised message) or "facts" (a finding of the stated facts)
  std::string id;       // the signature or finding id it rests on
  std::string summary;  // the explanation's title or the finding's message
  std::string fix;      // what to change first: the finding's remediation or the most likely cause
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

// The position of `layer` in the order diagnosis walks the layers, with
// "container" beside the host; unknown layers last.
int layer_rank(const std::string& layer);

}  // namespace cudiag::explain
