#include "rules/rule_table.h"

#include <algorithm>
#include <deque>
#include <sstream>
#include <stdexcept>

namespace cudiag::rules {

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

std::vector<std::string> declared_severities(const RuleSpec& spec) {
  // Drop parenthesised remarks, then split on '/'.
  std::string text;
  int depth = 0;
  for (char c : spec.severity) {
    if (c == '(') ++depth;
    if (depth == 0) text += c;
    if (c == ')' && depth > 0) --depth;
  }
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, '/')) {
    part.erase(0, part.find_first_not_of(' '));
    part.erase(part.find_last_not_of(' ') + 1);
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

namespace {

bool name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

// Walks `tmpl`: literal text goes to `text`, each placeholder name to `name`.
template <class Text, class Name>
void walk_template(std::string_view tmpl, Text text, Name name) {
  auto malformed = [&](std::string_view why) {
    throw std::logic_error("rule template \"" + std::string(tmpl) + "\": " + std::string(why));
  };
  std::size_t i = 0;
  while (i < tmpl.size()) {
    char c = tmpl[i];
    if (c == '}') {
      if (i + 1 < tmpl.size() && tmpl[i + 1] == '}') {
        text(std::string_view("}"));
        i += 2;
        continue;
      }
      malformed("a lone '}' (write '}}')");
    }
    if (c != '{') {
      std::size_t next = tmpl.find_first_of("{}", i);
      if (next == std::string_view::npos) next = tmpl.size();
      text(tmpl.substr(i, next - i));
      i = next;
      continue;
    }
    if (i + 1 < tmpl.size() && tmpl[i + 1] == '{') {
      text(std::string_view("{"));
      i += 2;
      continue;
    }
    std::size_t close = tmpl.find('}', i);
    if (close == std::string_view::npos) malformed("a '{' without its '}' (write '{{')");
    std::string_view n = tmpl.substr(i + 1, close - i - 1);
    if (n.empty() || !std::all_of(n.begin(), n.end(), name_char) || !(n[0] >= 'a' && n[0] <= 'z'))
      malformed("placeholder {" + std::string(n) + "} is not a name (a-z, 0-9, _)");
    name(n);
    i = close + 1;
  }
}

}  // namespace

std::vector<std::string> template_placeholders(std::string_view tmpl) {
  std::vector<std::string> out;
  walk_template(
      tmpl, [](std::string_view) {},
      [&](std::string_view n) {
        if (std::find(out.begin(), out.end(), n) == out.end()) out.emplace_back(n);
      });
  return out;
}

std::string format_template(std::string_view tmpl, const std::vector<TemplateArg>& args,
                            std::vector<bool>* used) {
  std::string out;
  if (used != nullptr) used->resize(args.size(), false);
  walk_template(
      tmpl, [&](std::string_view t) { out += t; },
      [&](std::string_view n) {
        auto it = std::find_if(args.begin(), args.end(), [&](const TemplateArg& a) { return a.name == n; });
        if (it == args.end())
          throw std::logic_error("rule template \"" + std::string(tmpl) + "\": no value for {" +
                                 std::string(n) + "}");
        out += it->value;
        if (used != nullptr) (*used)[static_cast<std::size_t>(it - args.begin())] = true;
      });
  return out;
}

}  // namespace cudiag::rules
