#pragma once
// The findings the rules give for a report that holds only stated facts (`--assume KEY=VALUE` ...), for
// the tests of the rules that judge such facts.
#include <algorithm>
#include <string>
#include <vector>

#include "kb/knowledge_base.h"
#include "report/assume.h"
#include "report/collect.h"
#include "rules/engine.h"
#include "rules/finding.h"

namespace cudiag::test {

inline std::vector<rules::Finding> findings_for(const std::vector<std::string>& assumptions) {
  Json report = report::new_report();
  report::apply_assumptions(report, assumptions, kb::KnowledgeBase::builtin());
  return rules::diagnose(report, kb::KnowledgeBase::builtin()).findings;
}

// The finding `id` among `fs`, or nullptr.
inline const rules::Finding* find_finding(const std::vector<rules::Finding>& fs, const std::string& id) {
  auto it = std::find_if(fs.begin(), fs.end(), [&](const rules::Finding& f) { return f.id == id; });
  return it == fs.end() ? nullptr : &*it;
}

}  // namespace cudiag::test
