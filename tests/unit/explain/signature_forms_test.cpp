// The forms a signature may take beyond a regex and its texts: another wording
// of a message an entry explains (explained_by), a match that starts at its
// anchor (anchored), and the lowercased pattern the matcher runs.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "explain/explain.h"
#include "explain/signatures.h"
#include "kb/knowledge_base.h"
#include "signature_load_util.h"

namespace cudiag::explain {
namespace {

using kb::KnowledgeBase;

// Appends `entry` to a copy of the built-in table and returns the load error ("" when it loads).
std::string load_with(const std::string& name, const Json& entry) {
  return testing::signatures_load_error(name, [&](Json& doc) { doc["entries"].push_back(entry); });
}

Json wording(const std::string& target, const Json& captures) {
  return {{"id", "test-wording"},
          {"explained_by", target},
          {"anchors", Json::array({"said"})},
          {"regex", "said (lib\\w+)"},
          {"captures", captures},
          {"source", Json::array({{{"url", "https://example.org/x"}, {"section", "test"}}})}};
}

TEST(SignatureFormsTest, AWordingTakesItsEntrysTextsAndMustCaptureTheSame) {
  Json soname = Json::array({{{"name", "lib"}, {"kind", "soname"}}});
  EXPECT_EQ(load_with("wording-ok", wording("missing-cuda-library", soname)), "");
  auto missing = load_with("wording-missing", wording("no-such-entry", soname));
  EXPECT_NE(missing.find("no entry 'no-such-entry'"), std::string::npos) << missing;
  auto differ = load_with("wording-differ",
                          wording("missing-cuda-library", Json::array({{{"name", "x"}, {"kind", "text"}}})));
  EXPECT_NE(differ.find("captures differ"), std::string::npos) << differ;

  const auto& sigs = signatures(KnowledgeBase::builtin());
  auto said = std::find_if(sigs.begin(), sigs.end(),
                           [](const Signature& s) { return s.id == "cuda-library-not-loaded-said"; });
  ASSERT_NE(said, sigs.end());
  EXPECT_EQ(said->layer, "libraries");
  EXPECT_FALSE(said->causes.empty());
  auto found = explain_text("Dynamic library libcudnn.so.8 and libcusolver.so.10 dont load\n",
                            KnowledgeBase::builtin());
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found.front().id, "missing-cuda-library");
  EXPECT_EQ(found.front().matched_by, "cuda-library-not-loaded-said");
}

TEST(SignatureFormsTest, TheLowercasedPatternKeepsEscapesAndMatchesAnyCase) {
  EXPECT_EQ(lowercase_pattern(R"(Found \S+ NVIDIA [A-Z_]\D\W\B)"), R"(found \S+ nvidia [a-z_]\D\W\B)");
  EXPECT_EQ(lowercase_pattern(R"(a\\B)"), R"(a\\b)");  // an escaped backslash, then a letter
  // Matched on the line as lowercased, reported as written.
  auto found = explain_text("FOUND NO NVIDIA DRIVER ON YOUR SYSTEM\n", KnowledgeBase::builtin());
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found.front().id, "torch-no-driver");
  EXPECT_EQ(found.front().matched_text, "FOUND NO NVIDIA DRIVER ON YOUR SYSTEM");
}

TEST(SignatureFormsTest, AnAnchoredWordingMatchesOnlyFromItsAnchor) {
  const auto& kb = KnowledgeBase::builtin();
  auto hit = explain_text("after the update my model does not use the GPU anymore\n", kb);
  ASSERT_FALSE(hit.empty());
  EXPECT_EQ(hit.front().id, "gpu-not-used-said");
  EXPECT_EQ(hit.front().matched_text, "not use the GPU");
  // The words apart, or no GPU named: no match.
  EXPECT_TRUE(explain_text("it does not matter which GPU you use\n", kb).empty());
}

}  // namespace
}  // namespace cudiag::explain
