// The rules tables (rules/rule_table.h) are the one declaration of every
// finding id: docs/rules.md's tables are generated from them here, and this
// test fails when the file is stale, when code in src/ or a scenario emits an
// id no table declares (or with another layer or severity), or when a table
// names a scenario or test that does not cover its id.
//
// Regenerate docs/rules.md after changing a table:
//   CUDIAG_UPDATE_RULES_DOC=1 build/tests/cudiag_tests --gtest_filter='RuleTable.*'
#include "rules/rule_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/json.h"
#include "kb/knowledge_base.h"
#include "report/assume.h"
#include "report/collect.h"
#include "rules/engine.h"
#include "rules/rule_support.h"

namespace cudiag {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// "error (independent) / warning" -> {"error", "warning"}
std::set<std::string> severities_of(const rules::RuleSpec& s) {
  auto list = rules::declared_severities(s);
  return {list.begin(), list.end()};
}

std::string covered_cell(const std::string& covered_by) {
  if (covered_by.starts_with("scenario ")) return "scenario `" + covered_by.substr(9) + "`";
  if (covered_by.starts_with("test ")) return "`tests/" + covered_by.substr(5) + "`";
  return "none yet";
}

// A template as a Markdown code span (templates hold single backticks, so the span uses two).
std::string code_span(const std::string& text) { return "`` " + text + " ``"; }

std::string table_markdown(const std::vector<rules::RuleSpec>& specs, const std::string& group) {
  std::string out = "| id | layer | severity | when | covered by |\n|---|---|---|---|---|\n";
  std::string templates;
  for (const auto& s : specs) {
    if (s.group != group) continue;
    out += "| `" + s.id + "` | " + (s.layer == "*" ? "see when" : s.layer) + " | " + s.severity + " | " +
           s.when + " | " + covered_cell(s.covered_by) + " |\n";
    templates += "\n- `" + s.id + "`\n  - message: " + code_span(s.message) +
                 "\n  - remediation: " + code_span(s.remediation) + "\n";
  }
  return out + "\nMessages and remediations (`{name}` is a value the rule fills in):\n" + templates;
}

// docs/rules.md with every "<!-- rules table GROUP ... -->" block regenerated; `groups` gets the groups seen.
std::string regenerated(const std::string& doc, const std::vector<rules::RuleSpec>& specs,
                        std::set<std::string>& groups) {
  static const std::regex kBlock(R"((<!-- rules table (\S+)[^\n]*-->\n)[\s\S]*?(<!-- end rules table -->))");
  std::string out;
  auto begin = std::sregex_iterator(doc.begin(), doc.end(), kBlock);
  std::size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    out += doc.substr(last, static_cast<std::size_t>(m.position(0)) - last);
    out += m[1].str() + table_markdown(specs, m[2].str()) + m[3].str();
    groups.insert(m[2].str());
    last = static_cast<std::size_t>(m.position(0) + m.length(0));
  }
  return out + doc.substr(last);
}

TEST(RuleTable, DocsRulesMdIsGeneratedFromTheTables) {
  auto specs = rules::rule_specs();
  ASSERT_GT(specs.size(), 60u);
  fs::path doc_path = fs::path(CUDIAG_SOURCE_DIR) / "docs" / "rules.md";
  std::string doc = read_text(doc_path);
  std::set<std::string> groups;
  std::string fresh = regenerated(doc, specs, groups);
  for (const auto& s : specs)
    EXPECT_TRUE(groups.count(s.group)) << s.id << " (" << s.file << "): docs/rules.md has no block "
                                       << "<!-- rules table " << s.group << " -->";
  for (const auto& g : groups)
    EXPECT_TRUE(
        std::any_of(specs.begin(), specs.end(), [&](const rules::RuleSpec& s) { return s.group == g; }))
        << "docs/rules.md has a block for " << g << ", which no table declares";
  if (std::getenv("CUDIAG_UPDATE_RULES_DOC") != nullptr) {
    if (fresh != doc) {
      fs::path tmp = doc_path.string() + ".tmp";
      std::ofstream(tmp) << fresh;
      fs::rename(tmp, doc_path);
    }
    return;
  }
  if (doc != fresh) {
    // Name the first line that differs rather than print both files.
    std::istringstream a(doc), b(fresh);
    std::string la, lb;
    int line = 0;
    while (true) {
      ++line;
      bool more_a = static_cast<bool>(std::getline(a, la)), more_b = static_cast<bool>(std::getline(b, lb));
      if (la != lb || more_a != more_b) break;
      if (!more_a) break;
    }
    ADD_FAILURE()
        << "docs/rules.md is stale from line " << line << ":\n  file:      " << la << "\n  generated: " << lb
        << "\nregenerate: CUDIAG_UPDATE_RULES_DOC=1 build/tests/cudiag_tests --gtest_filter='RuleTable.*'";
  }
}

TEST(RuleTable, IdsAreUniqueAndWellFormed) {
  std::set<std::string> seen;
  for (const auto& s : rules::rule_specs()) {
    EXPECT_TRUE(seen.insert(s.id).second) << s.id << " declared twice";
    EXPECT_TRUE(std::regex_match(s.id, std::regex(R"([a-z_]+\.[a-z0-9_]+)"))) << s.id;
    EXPECT_FALSE(severities_of(s).empty()) << s.id;
    for (const auto& sev : severities_of(s))
      EXPECT_TRUE(sev == "error" || sev == "warning" || sev == "info") << s.id << ": " << sev;
    EXPECT_FALSE(s.when.empty()) << s.id;
    EXPECT_EQ(s.when.find('|'), std::string::npos) << s.id << ": a | would break the table";
  }
}

// Every finding() call in src/rules/ (the only place findings are made): the text of its arguments, with the
// file it is in.
struct Call {
  std::string file;
  std::string args;
};

std::vector<Call> finding_calls() {
  static const std::regex kCall(R"(\bfinding\()");
  std::vector<Call> calls;
  for (const auto& e : fs::directory_iterator(fs::path(CUDIAG_SOURCE_DIR) / "src" / "rules")) {
    if (e.path().extension() != ".cpp") continue;
    std::string text = read_text(e.path());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), kCall); it != std::sregex_iterator();
         ++it) {
      // The arguments up to the matching parenthesis, skipping string literals.
      std::size_t begin = static_cast<std::size_t>(it->position(0) + it->length(0)), i = begin;
      int depth = 1;
      while (i < text.size() && depth > 0) {
        char c = text[i];
        if (c == '"') {
          for (++i; i < text.size() && text[i] != '"'; ++i)
            if (text[i] == '\\') ++i;
        } else if (c == '(') {
          ++depth;
        } else if (c == ')') {
          --depth;
        }
        ++i;
      }
      std::string args = text.substr(begin, i - 1 - begin);
      // The definitions in rules/rule_support.cpp take parameters, not an id literal.
      if (args.starts_with("const std::string& id")) continue;
      calls.push_back({e.path().string(), args});
    }
  }
  return calls;
}

// The ids a call can emit: each "prefix.name" literal before its arguments' list (one, or two in a
// `cond ? "a" : "b"`), or every declared id ending in ".name" for `layer + ".name"` (one rule, two layers).
std::vector<const rules::RuleSpec*> ids_of(const Call& call, const std::vector<rules::RuleSpec>& specs) {
  static const std::regex kLiteral(R"re("([a-z_]+\.[a-z0-9_]+)")re");
  static const std::regex kSuffix(R"re(^\s*\w+\s*\+\s*"\.([a-z0-9_]+)")re");
  std::string head = call.args.substr(0, call.args.find('{'));
  std::vector<const rules::RuleSpec*> out;
  std::smatch m;
  if (std::regex_search(head, m, kSuffix)) {
    for (const auto& s : specs)
      if (s.id.ends_with("." + m[1].str())) out.push_back(&s);
    EXPECT_FALSE(out.empty()) << call.file << " emits <layer>." << m[1].str()
                              << ", which no rules table declares";
    return out;
  }
  for (auto it = std::sregex_iterator(head.begin(), head.end(), kLiteral); it != std::sregex_iterator();
       ++it) {
    const rules::RuleSpec* s = rules::rule_spec((*it)[1].str());
    EXPECT_NE(s, nullptr) << call.file << " emits " << (*it)[1].str() << ", which no rules table declares";
    if (s != nullptr) out.push_back(s);
  }
  return out;
}

// The placeholder names a call fills: each {"name", value} of its list.
std::set<std::string> names_of(const Call& call) {
  static const std::regex kName(R"re(\{\s*"([a-z][a-z0-9_]*)"\s*,)re");
  std::set<std::string> out;
  auto list = call.args.find('{');
  if (list == std::string::npos) return out;
  std::string rest = call.args.substr(list);
  for (auto it = std::sregex_iterator(rest.begin(), rest.end(), kName); it != std::sregex_iterator(); ++it)
    out.insert((*it)[1].str());
  return out;
}

std::set<std::string> placeholders_of(const rules::RuleSpec& s) {
  std::set<std::string> out;
  for (const auto& n : rules::template_placeholders(s.message)) out.insert(n);
  for (const auto& n : rules::template_placeholders(s.remediation)) out.insert(n);
  return out;
}

// Every finding id the code in src/ can emit (the first argument of finding()) is declared, and the
// call fills exactly the placeholders of that id's templates: a misspelt name fails here, not in a
// user's diagnosis.
TEST(RuleTable, EveryIdEmittedInSrcIsDeclaredAndFillsItsTemplates) {
  auto specs = rules::rule_specs();
  std::size_t emitted = 0;
  for (const auto& call : finding_calls()) {
    auto names = names_of(call);
    for (const rules::RuleSpec* s : ids_of(call, specs)) {
      ++emitted;
      EXPECT_EQ(names, placeholders_of(*s)) << call.file << ": finding(" << call.args.substr(0, 80)
                                            << "...) fills other names than " << s->id << "'s templates use";
    }
  }
  EXPECT_GT(emitted, 60u) << "the scan found too few ids: has the way findings are made changed?";
  // Findings are made only through finding(), so the table is the one place their text lives.
  static const std::regex kByHand(R"(\b\w+\.(message|remediation)\s*=[^=])");
  for (const auto& e : fs::directory_iterator(fs::path(CUDIAG_SOURCE_DIR) / "src" / "rules")) {
    if (e.path().extension() != ".cpp") continue;
    std::string text = read_text(e.path());
    std::smatch m;
    if (e.path().filename() == "rule_support.cpp" || e.path().filename().string().starts_with("require_"))
      continue;
    EXPECT_FALSE(std::regex_search(text, m, kByHand))
        << e.path() << " sets a finding's text by hand: " << m[0];
  }
}

// Every template is well formed and formats with the names it declares; each id has a message.
TEST(RuleTable, TemplatesFormatWithTheirOwnNames) {
  for (const auto& s : rules::rule_specs()) {
    EXPECT_FALSE(s.message.empty()) << s.id << ": no message template";
    EXPECT_FALSE(s.remediation.empty()) << s.id << ": no remediation template";
    std::vector<rules::TemplateArg> args;
    std::set<std::string> names;
    try {
      names = placeholders_of(s);
    } catch (const std::logic_error& e) {
      ADD_FAILURE() << s.id << ": " << e.what();
      continue;
    }
    for (const auto& n : names) args.emplace_back(n, "<" + n + ">");
    std::vector<bool> used, used_too;
    std::string message = rules::format_template(s.message, args, &used);
    std::string remediation = rules::format_template(s.remediation, args, &used_too);
    for (std::size_t i = 0; i < args.size(); ++i)
      EXPECT_TRUE(used[i] || used_too[i]) << s.id << ": {" << args[i].name << "} unused";
    EXPECT_EQ(message.find('{'), std::string::npos) << s.id << ": " << message;
    EXPECT_EQ(remediation.find('{'), std::string::npos) << s.id << ": " << remediation;
  }
}

TEST(RuleTable, FindingTakesLayerAndSeverityFromTheTable) {
  auto f = rules::finding("nvml.load_failed", {{"error", "timed out"}});
  EXPECT_EQ(f.layer, "nvml");
  EXPECT_EQ(f.severity, rules::Severity::kError);
  EXPECT_EQ(f.message, "Loading libnvidia-ml failed: timed out.");
  EXPECT_THROW(rules::finding("nvml.load_failed"), std::logic_error);  // {error} unfilled
  EXPECT_THROW(rules::finding("nvml.load_failed", {{"error", ""}, {"extra", ""}}),
               std::logic_error);  // unused
  EXPECT_THROW(rules::finding("nvml.no_such_id"), std::logic_error);
  EXPECT_THROW(rules::finding("nvml.load_failed", rules::Severity::kWarning, {{"error", ""}}),
               std::logic_error);
  // "error / warning": the call picks one, and must.
  EXPECT_THROW(rules::finding("frameworks.library_not_found", {{"problem", ""}, {"remedy", ""}}),
               std::logic_error);
  EXPECT_EQ(rules::finding("frameworks.library_not_found", rules::Severity::kWarning,
                           {{"problem", ""}, {"remedy", ""}})
                .severity,
            rules::Severity::kWarning);
  // "*": the layer of what it judges, passed by the call.
  EXPECT_EQ(rules::finding("requirement.unsatisfied", "nvml", rules::Severity::kError,
                           {{"requirement", "r"}, {"why", "w"}, {"layer", "nvml"}})
                .layer,
            "nvml");
}

TEST(RuleTable, FormatTemplateFillsNamesAndRefusesMistakes) {
  EXPECT_EQ(rules::format_template("a {x} b {{literal}} {y}{x}", {{"x", "{y}"}, {"y", 7}}),
            "a {y} b {literal} 7{y}");
  EXPECT_THROW(rules::format_template("{missing}", {}), std::logic_error);
  EXPECT_THROW(rules::format_template("a lone { brace", {}), std::logic_error);
  EXPECT_THROW(rules::format_template("a lone } brace", {}), std::logic_error);
  EXPECT_THROW(rules::format_template("{Not_a_name}", {{"Not_a_name", ""}}), std::logic_error);
  EXPECT_EQ(rules::template_placeholders("{b} {a} {b} {{c}}"), (std::vector<std::string>{"b", "a"}));
}

TEST(RuleTable, CoverageNamedInATableExists) {
  fs::path tests = CUDIAG_TEST_DIR;
  for (const auto& s : rules::rule_specs()) {
    if (s.covered_by.starts_with("scenario ")) {
      fs::path p = tests / "scenarios" / (s.covered_by.substr(9) + ".json");
      ASSERT_TRUE(fs::exists(p)) << s.id << ": " << p;
      Json scenario = Json::parse(read_text(p));
      bool expects = false;
      for (const auto& f : scenario["expect"].value("findings", Json::array()))
        expects = expects || f.value("id", "") == s.id;
      EXPECT_TRUE(expects) << s.id << ": " << p << " does not expect it";
    } else if (s.covered_by.starts_with("test ")) {
      fs::path p = tests / s.covered_by.substr(5);
      ASSERT_TRUE(fs::exists(p)) << s.id << ": " << p;
      EXPECT_NE(read_text(p).find("\"" + s.id + "\""), std::string::npos)
          << s.id << ": " << p << " never names it";
    } else {
      EXPECT_TRUE(s.covered_by.empty()) << s.id << ": covered_by is 'scenario NAME', 'test PATH' or empty";
    }
  }
}

// What the rules really emit on every scenario has the layer and a severity its table declares.
TEST(RuleTable, ScenarioFindingsMatchTheirDeclaration) {
  std::size_t checked = 0;
  for (const auto& e : fs::directory_iterator(fs::path(CUDIAG_TEST_DIR) / "scenarios")) {
    if (e.path().extension() != ".json") continue;
    Json scenario = Json::parse(read_text(e.path()));
    Json report = report::new_report();
    if (scenario.contains("report")) report.merge_patch(scenario["report"]);
    std::vector<std::string> assume;
    if (scenario.contains("assume")) assume = scenario["assume"].get<std::vector<std::string>>();
    report::apply_assumptions(report, assume, kb::KnowledgeBase::builtin());
    for (const auto& f : rules::diagnose(report, kb::KnowledgeBase::builtin()).findings) {
      ++checked;
      const rules::RuleSpec* s = rules::rule_spec(f.id);
      ASSERT_NE(s, nullptr) << e.path().filename() << ": " << f.id << " is in no rules table";
      if (s->layer != "*") {
        EXPECT_EQ(f.layer, s->layer) << e.path().filename() << ": " << f.id;
      }
      EXPECT_TRUE(severities_of(*s).count(rules::severity_name(f.severity)))
          << e.path().filename() << ": " << f.id << " is " << rules::severity_name(f.severity)
          << ", declared " << s->severity;
    }
  }
  EXPECT_GT(checked, 60u);
}

}  // namespace
}  // namespace cudiag
