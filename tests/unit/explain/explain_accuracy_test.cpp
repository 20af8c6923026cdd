// The measured accuracy of `cudiag explain` on real reports: for every
// verbatim message (cases.json) and every pasted issue body (pasted_cases.json),
// each from a public thread with its URL, is the answer's layer the expected
// one and does the answer carry the expected concrete remedy? Accuracy is
// printed per layer; the suite fails under 95 % for either corpus.
#include <gtest/gtest.h>

#include "accuracy_scoring.h"

namespace cudiag::explain {
namespace {

using scoring::load;
using scoring::score;

TEST(ExplainAccuracyTest, VerbatimMessagesAtLeast95PercentRightLayerAndRemedy) {
  const Json doc = load("cases.json");
  ASSERT_GE(doc["cases"].size(), 300u);
  EXPECT_GE(score(doc["cases"], false, "messages"), 0.95);
}

TEST(ExplainAccuracyTest, PastedIssueBodiesAtLeast95PercentRightLayerAndRemedy) {
  const Json doc = load("pasted_cases.json");
  ASSERT_GE(doc["cases"].size(), 60u);
  for (const auto& c : doc["cases"]) EXPECT_EQ(c["source"].get<std::string>().rfind("https://", 0), 0u);
  EXPECT_GE(score(doc["cases"], true, "pasted issues"), 0.95);
}

}  // namespace
}  // namespace cudiag::explain
