// Real error messages, copied verbatim from public issue reports (each case
// names its URL in cases.json), and what `cudiag explain` must make of them:
// the signature, the layer and the values taken from the text.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "core/json.h"
#include "explain/explain.h"
#include "kb/knowledge_base.h"

namespace cudiag::explain {
namespace {

Json load_cases() {
  std::ifstream in(std::string(CUDIAG_TEST_DIR) + "/unit/explain/cases.json", std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

const Json& cases() {
  static const Json doc = load_cases();
  return doc["cases"];
}

class ExplainCaseTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ExplainCaseTest, RecognisesTheMessage) {
  const Json& c = cases()[GetParam()];
  const std::string text = c["text"].get<std::string>();
  SCOPED_TRACE(c["source"].get<std::string>());
  // As found in a log: generic signatures must find their context words.
  auto found = explain_text(text, kb::KnowledgeBase::builtin());
  ASSERT_FALSE(found.empty()) << text;
  // The expected explanation comes first: nothing else in the message is explained before it.
  const Explanation& e = found.front();
  EXPECT_EQ(e.id, c["expect_id"].get<std::string>()) << text;
  // A wording another entry explains (explained_by) is named as the entry that matched.
  if (c.contains("expect_matched_by")) {
    EXPECT_EQ(e.matched_by, c["expect_matched_by"].get<std::string>()) << text;
  }
  // The layer the answer names: the message's, or the one its own values move it to (a dropped
  // architecture nvcc rejects is the build's list), as `cudiag explain` prints it.
  add_message_fixes(found, kb::KnowledgeBase::builtin());
  EXPECT_EQ(found.front().machine_layer.empty() ? e.layer : found.front().machine_layer,
            c["expect_layer"].get<std::string>())
      << text;
  if (c.contains("expect_values")) {
    for (const auto& [name, value] : c["expect_values"].items()) {
      EXPECT_EQ(value_of(e, name), value.get<std::string>()) << name << " in " << text;
    }
  }
  if (c.contains("expect_occurrences")) {
    EXPECT_EQ(e.occurrences, c["expect_occurrences"].get<std::size_t>());
  }
  EXPECT_FALSE(e.meaning.empty());
  EXPECT_FALSE(e.causes.empty());
  EXPECT_FALSE(e.checks.empty());
  EXPECT_FALSE(e.sources.empty());
  // Every placeholder was filled.
  for (const auto* t : {&e.title, &e.meaning}) EXPECT_EQ(t->find('{'), std::string::npos) << *t;
  for (const auto& t : e.causes) EXPECT_EQ(t.find('{'), std::string::npos) << t;
}

std::string case_name(const ::testing::TestParamInfo<std::size_t>& info) {
  std::string id = cases()[info.param]["expect_id"].get<std::string>();
  for (auto& ch : id) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return id + "_" + std::to_string(info.param);
}

INSTANTIATE_TEST_SUITE_P(RealReports, ExplainCaseTest, ::testing::Range<std::size_t>(0, cases().size()),
                         case_name);

TEST(ExplainCasesDataTest, AtLeastThreeHundredCasesEachWithAPublicSourceAndRemedy) {
  ASSERT_GE(cases().size(), 300u);
  std::set<std::string> texts;
  for (const auto& c : cases()) {
    auto source = c["source"].get<std::string>();
    EXPECT_EQ(source.rfind("https://github.com/", 0), 0u) << source;
    // A report (issue or pull-request thread) where the message appears.
    EXPECT_TRUE(source.find("/issues/") != std::string::npos || source.find("/pull/") != std::string::npos)
        << source;
    EXPECT_TRUE(texts.insert(c["text"].get<std::string>()).second) << "duplicate case text";
    EXPECT_FALSE(c.value("expect_remedy", "").empty()) << source << ": no expected remedy";
  }
}

TEST(ExplainCasesDataTest, EverySpecificSignatureIsExercisedByARealMessage) {
  std::set<std::string> covered;
  for (const auto& c : cases()) {
    covered.insert(c["expect_id"].get<std::string>());
    covered.insert(c.value("expect_matched_by", ""));
  }
  for (const auto& s : signatures(kb::KnowledgeBase::builtin())) {
    if (s.id == "cuda-error-name") continue;  // resolved to the specific signature its name stands for
    EXPECT_TRUE(covered.count(s.id)) << s.id << " has no real message in cases.json";
  }
}

}  // namespace
}  // namespace cudiag::explain
