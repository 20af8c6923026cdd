#include "rules/rule_table.h"

#include <algorithm>
#include <deque>

namespace cudiag {

namespace {
// A deque: rule_spec() hands out pointers that must stay valid as later files register.
std::deque<RuleSpec>& table() {
  static std::deque<RuleSpec> specs;
  return specs;
}
}  // namespace

RegisterRuleTable::RegisterRuleTable(std::initializer_list<RuleSpec> specs, std::source_location where) {
  std::string file = where.file_name();
  if (auto pos = file.rfind("src/"); pos != std::string::npos) file = file.substr(pos);
  for (RuleSpec s : specs) {
    s.file = file;
    if (s.group.empty()) s.group = s.id.substr(0, s.id.find('.'));
    table().push_back(std::move(s));
  }
}

std::vector<RuleSpec> rule_specs() {
  std::vector<RuleSpec> out(table().begin(), table().end());
  // Static registration runs in link order; the file name makes the order the same in every build.
  std::stable_sort(out.begin(), out.end(),
                   [](const RuleSpec& a, const RuleSpec& b) { return a.file < b.file; });
  return out;
}

const RuleSpec* rule_spec(const std::string& id) {
  for (const auto& s : table())
    if (s.id == id) return &s;
  return nullptr;
}

}  // namespace cudiag
