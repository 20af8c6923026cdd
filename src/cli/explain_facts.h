#pragma once
// The environment `cudiag explain` diagnoses when the user states it: the
// --assume facts and the facts read from a pasted issue (explain/pasted_facts.h)
// overlaid on a report (empty, or --report FILE) and diagnosed by the same
// rules as `check`. Each pasted fact's source names its line.
#include <string>
#include <vector>

#include "core/json.h"
#include "explain/explain.h"
#include "explain/pasted_facts.h"
#include "kb/knowledge_base.h"

namespace cudiag::cli {

struct StatedFacts {
  std::vector<explain::PastedFact> applied;  // pasted facts that became report facts
  std::vector<std::string> skipped;          // "gpu=Foo (line 4): why" for those the rules cannot take
};

// Overlays `assumptions` (bad ones throw InputError: exit 2) and then the
// pasted `facts` (a bad one is skipped and said so) on `report`.
StatedFacts apply_stated_facts(Json& report, const std::vector<std::string>& assumptions,
                               const std::vector<explain::PastedFact>& facts, const kb::KnowledgeBase& kb);

// The diagnosis's error and warning findings. A finding that a recognised
// message is an instance of (the signature's "confirms" list) carries
// "confirmed_by"; a warning among them is raised to an error and also carries
// "raised_by". Confirmed findings come first, then errors, then warnings.
Json stated_findings(const Json& report, const std::vector<explain::Explanation>& explanations,
                     const kb::KnowledgeBase& kb);

}  // namespace cudiag::cli
