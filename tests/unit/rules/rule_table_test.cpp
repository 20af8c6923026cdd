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
#include <string>
#include <vector>

#include "core/json.h"
#include "kb/knowledge_base.h"
#include "report/assume.h"
#include "report/collect.h"
#include "rules/engine.h"

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
std::set<std::string> severities_of(const RuleSpec& s) {
  std::string text = std::regex_replace(s.severity, std::regex(R"(\([^)]*\))"), "");
  std::set<std::string> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, '/')) {
    part.erase(0, part.find_first_not_of(' '));
    part.erase(part.find_last_not_of(' ') + 1);
    if (!part.empty()) out.insert(part);
  }
  return out;
}

std::string covered_cell(const std::string& covered_by) {
  if (covered_by.starts_with("scenario ")) return "scenario `" + covered_by.substr(9) + "`";
  if (covered_by.starts_with("test ")) return "`tests/" + covered_by.substr(5) + "`";
  return "none yet";
}

std::string table_markdown(const std::vector<RuleSpec>& specs, const std::string& group) {
  std::string out = "| id | layer | severity | when | covered by |\n|---|---|---|---|---|\n";
  for (const auto& s : specs) {
    if (s.group != group) continue;
    out += "| `" + s.id + "` | " + (s.layer == "*" ? "see when" : s.layer) + " | " + s.severity + " | " +
           s.when + " | " + covered_cell(s.covered_by) + " |\n";
  }
  return out;
}

// docs/rules.md with every "<!-- rules table GROUP ... -->" block regenerated; `groups` gets the groups seen.
std::string regenerated(const std::string& doc, const std::vector<RuleSpec>& specs,
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
  auto specs = rule_specs();
  ASSERT_GT(specs.size(), 60u);
  fs::path doc_path = fs::path(CUDIAG_SOURCE_DIR) / "docs" / "rules.md";
  std::string doc = read_text(doc_path);
  std::set<std::string> groups;
  std::string fresh = regenerated(doc, specs, groups);
  for (const auto& s : specs)
    EXPECT_TRUE(groups.count(s.group)) << s.id << " (" << s.file << "): docs/rules.md has no block "
                                       << "<!-- rules table " << s.group << " -->";
  for (const auto& g : groups)
    EXPECT_TRUE(std::any_of(specs.begin(), specs.end(), [&](const RuleSpec& s) { return s.group == g; }))
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
  for (const auto& s : rule_specs()) {
    EXPECT_TRUE(seen.insert(s.id).second) << s.id << " declared twice";
    EXPECT_TRUE(std::regex_match(s.id, std::regex(R"([a-z_]+\.[a-z0-9_]+)"))) << s.id;
    EXPECT_FALSE(severities_of(s).empty()) << s.id;
    for (const auto& sev : severities_of(s))
      EXPECT_TRUE(sev == "error" || sev == "warning" || sev == "info") << s.id << ": " << sev;
    EXPECT_FALSE(s.when.empty()) << s.id;
    EXPECT_EQ(s.when.find('|'), std::string::npos) << s.id << ": a | would break the table";
  }
}

// Every finding id the code in src/ can emit: the first argument of make_finding, an `.id =` assignment,
// and `layer + ".suffix"` (one rule, two layers).
TEST(RuleTable, EveryIdEmittedInSrcIsDeclared) {
  static const std::regex kLiteral(R"((?:make_finding\(\s*|\.id\s*=\s*)\"([a-z_]+\.[a-z0-9_]+)\")");
  static const std::regex kSuffix(R"(make_finding\(\s*\w+\s*\+\s*\"\.([a-z0-9_]+)\")");
  auto specs = rule_specs();
  std::size_t emitted = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(CUDIAG_SOURCE_DIR) / "src")) {
    if (e.path().extension() != ".cpp" && e.path().extension() != ".h") continue;
    std::string text = read_text(e.path());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), kLiteral); it != std::sregex_iterator();
         ++it) {
      ++emitted;
      EXPECT_NE(rule_spec((*it)[1].str()), nullptr)
          << e.path().string() << " emits " << (*it)[1].str() << ", which no rules table declares";
    }
    for (auto it = std::sregex_iterator(text.begin(), text.end(), kSuffix); it != std::sregex_iterator();
         ++it) {
      ++emitted;
      std::string suffix = "." + (*it)[1].str();
      EXPECT_TRUE(
          std::any_of(specs.begin(), specs.end(), [&](const RuleSpec& s) { return s.id.ends_with(suffix); }))
          << e.path().string() << " emits <layer>" << suffix << ", which no rules table declares";
    }
  }
  EXPECT_GT(emitted, 60u) << "the scan found too few ids: has the way findings are made changed?";
}

TEST(RuleTable, CoverageNamedInATableExists) {
  fs::path tests = CUDIAG_TEST_DIR;
  for (const auto& s : rule_specs()) {
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
    Json report = new_report();
    if (scenario.contains("report")) report.merge_patch(scenario["report"]);
    std::vector<std::string> assume;
    if (scenario.contains("assume")) assume = scenario["assume"].get<std::vector<std::string>>();
    apply_assumptions(report, assume, kb::KnowledgeBase::builtin());
    for (const auto& f : diagnose(report, kb::KnowledgeBase::builtin()).findings) {
      ++checked;
      const RuleSpec* s = rule_spec(f.id);
      ASSERT_NE(s, nullptr) << e.path().filename() << ": " << f.id << " is in no rules table";
      if (s->layer != "*") {
        EXPECT_EQ(f.layer, s->layer) << e.path().filename() << ": " << f.id;
      }
      EXPECT_TRUE(severities_of(*s).count(severity_name(f.severity)))
          << e.path().filename() << ": " << f.id << " is " << severity_name(f.severity) << ", declared "
          << s->severity;
    }
  }
  EXPECT_GT(checked, 60u);
}

}  // namespace
}  // namespace cudiag
