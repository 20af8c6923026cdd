// The scenario suite: each tests/scenarios/*.json is a machine state taken
// from a public bug report or document (its "source"), written as a partial
// report and/or --assume overlays, with the findings the rules must give.
// Every error finding must be expected (no surprise errors); warnings and
// infos not listed are allowed unless named in "absent".
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
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

std::vector<std::string> scenario_files() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(fs::path(CUDIAG_TEST_DIR) / "scenarios")) {
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Json read_json(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

class ScenarioTest : public testing::TestWithParam<std::string> {};

TEST_P(ScenarioTest, FindingsMatch) {
  Json scenario = read_json(GetParam());
  ASSERT_TRUE(scenario.contains("source"))
      << "every scenario names the public report or document it comes from";
  ASSERT_TRUE(scenario["source"].get<std::string>().starts_with("http")) << scenario["source"];
  Json report = report::new_report();
  if (scenario.contains("report")) report.merge_patch(scenario["report"]);
  std::vector<std::string> assume;
  if (scenario.contains("assume")) assume = scenario["assume"].get<std::vector<std::string>>();
  report::apply_assumptions(report, assume, kb::KnowledgeBase::builtin());
  auto d = rules::diagnose(report, kb::KnowledgeBase::builtin());

  std::ostringstream got;
  for (const auto& f : d.findings)
    got << "  " << rules::severity_name(f.severity) << " " << f.id << ": " << f.message << "\n";
  const Json& expect = scenario["expect"];
  std::set<std::string> expected_errors;
  for (const auto& e : expect["findings"]) {
    auto id = e["id"].get<std::string>();
    auto sev = e.value("severity", "");
    auto it = std::find_if(d.findings.begin(), d.findings.end(), [&](const rules::Finding& f) {
      return f.id == id && (sev.empty() || sev == rules::severity_name(f.severity));
    });
    EXPECT_NE(it, d.findings.end()) << "expected " << sev << " " << id << "; got:\n" << got.str();
    if (it != d.findings.end() && e.contains("message_has")) {
      for (const auto& part : e["message_has"]) {
        EXPECT_NE(it->message.find(part.get<std::string>()), std::string::npos)
            << id << " message lacks \"" << part.get<std::string>() << "\": " << it->message;
      }
    }
    if (it != d.findings.end() && e.contains("remediation_has")) {
      for (const auto& part : e["remediation_has"]) {
        EXPECT_NE(it->remediation.find(part.get<std::string>()), std::string::npos)
            << id << " remediation lacks \"" << part.get<std::string>() << "\": " << it->remediation;
      }
    }
    if (it != d.findings.end() && e.contains("remediation_lacks")) {
      for (const auto& part : e["remediation_lacks"]) {
        EXPECT_EQ(it->remediation.find(part.get<std::string>()), std::string::npos)
            << id << " remediation has \"" << part.get<std::string>() << "\": " << it->remediation;
      }
    }
    if (sev == "error") expected_errors.insert(id);
  }
  for (const auto& f : d.findings) {
    EXPECT_FALSE(f.severity == rules::Severity::kError && !expected_errors.count(f.id))
        << "unexpected error " << f.id << ": " << f.message;
    EXPECT_FALSE(f.docs.empty()) << f.id << " cites no documentation";
    // No exemption: every finding, forward_compat_in_use included, cites the facts it judged.
    EXPECT_FALSE(f.evidence.empty()) << f.id << " has no evidence";
  }
  if (expect.contains("absent")) {
    for (const auto& id : expect["absent"]) {
      bool found = std::any_of(d.findings.begin(), d.findings.end(),
                               [&](const rules::Finding& f) { return f.id == id.get<std::string>(); });
      EXPECT_FALSE(found) << id << " should not be reported; got:\n" << got.str();
    }
  }
  if (expect.contains("first_failing_layer")) {
    std::string want =
        expect["first_failing_layer"].is_null() ? "" : expect["first_failing_layer"].get<std::string>();
    EXPECT_EQ(d.first_failing_layer, want) << got.str();
  }
  if (expect.contains("consequence_of")) {
    for (const auto& [id, layer] : expect["consequence_of"].items()) {
      auto it = std::find_if(d.findings.begin(), d.findings.end(),
                             [&](const rules::Finding& f) { return f.id == id; });
      ASSERT_NE(it, d.findings.end()) << id;
      EXPECT_EQ(it->consequence_of, layer.get<std::string>()) << id;
    }
  }
}

std::string scenario_name(const testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  for (auto& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Scenarios, ScenarioTest, testing::ValuesIn(scenario_files()), scenario_name);

TEST(ScenarioSuite, HasAtLeastFortyCasesEachWithItsOwnSource) {
  auto files = scenario_files();
  EXPECT_GE(files.size(), 40u);
  // Each case names the public report or document it comes from (several cases may cite one document).
  for (const auto& path : files) {
    std::ifstream in(path);
    Json c = Json::parse(in, nullptr, false);
    ASSERT_TRUE(c.is_object()) << path;
    ASSERT_TRUE(c.contains("source") && c["source"].is_string()) << path << " has no source";
    const auto& src = c["source"].get_ref<const std::string&>();
    EXPECT_TRUE(src.starts_with("https://")) << path << ": source is not a URL: " << src;
  }
}

}  // namespace
}  // namespace cudiag
