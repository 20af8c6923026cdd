// The answer `cudiag explain` prints first (explain/verdict.h): a recognised
// message against the diagnosis of the stated facts, one policy for the
// command and for the accuracy corpora.
#include "explain/verdict.h"

#include <gtest/gtest.h>

namespace cudiag::explain {
namespace {

Explanation message(const std::string& layer, bool symptom = false, bool environment = true) {
  Explanation e;
  e.id = "sig";
  e.layer = layer;
  e.title = "the message";
  e.causes = {"the first cause", "the second"};
  e.symptom = symptom;
  e.environment = environment;
  return e;
}

Json finding(const std::string& layer, const std::string& severity) {
  return Json{{"id", layer + ".x"},
              {"layer", layer},
              {"severity", severity},
              {"message", "the finding"},
              {"remediation", "the fix"}};
}

TEST(VerdictTest, NothingRecognisedAndNoFindingGivesNoAnswer) {
  EXPECT_TRUE(decide({}, Json::array()).layer.empty());
}

TEST(VerdictTest, TheMessageAnswersWithItsMostLikelyCause) {
  auto v = decide({message("driver_api")}, Json::array());
  EXPECT_EQ(v.layer, "driver_api");
  EXPECT_EQ(v.from, "message");
  EXPECT_EQ(v.fix, "the first cause");
}

TEST(VerdictTest, AnEarlierLayersFailingFactAnswersBeforeTheMessage) {
  auto v = decide({message("frameworks")}, Json::array({finding("kernel_driver", "error")}));
  EXPECT_EQ(v.layer, "kernel_driver");
  EXPECT_EQ(v.from, "facts");
  EXPECT_EQ(v.fix, "the fix");
}

TEST(VerdictTest, ALaterLayersFactOrAWarningDoesNotOverruleTheMessage) {
  EXPECT_EQ(decide({message("kernel_driver")}, Json::array({finding("frameworks", "error")})).layer,
            "kernel_driver");
  EXPECT_EQ(decide({message("frameworks")}, Json::array({finding("host", "warning")})).layer, "frameworks");
}

TEST(VerdictTest, ASymptomGivesWayToAnyFailingFact) {
  // "no CUDA-capable device" points at the host (CUDA_VISIBLE_DEVICES), but missing device nodes say why.
  auto v = decide({message("host", /*symptom=*/true)}, Json::array({finding("kernel_driver", "error")}));
  EXPECT_EQ(v.layer, "kernel_driver");
  EXPECT_EQ(decide({message("host")}, Json::array({finding("kernel_driver", "error")})).layer, "host");
}

TEST(VerdictTest, AConfirmedWarningOrANonEnvironmentMessageLetsTheFactsAnswer) {
  Json confirmed = finding("cuda_runtime", "error");
  confirmed["confirmed_by"] = "sig";
  EXPECT_EQ(decide({message("host")}, Json::array({confirmed})).layer, "cuda_runtime");
  EXPECT_EQ(
      decide({message("host", false, /*environment=*/false)}, Json::array({finding("libraries", "error")}))
          .layer,
      "libraries");
}

TEST(VerdictTest, LayerRankIsTheDiagnosisOrderWithTheContainerBesideTheHost) {
  EXPECT_LT(layer_rank("host"), layer_rank("container"));
  EXPECT_LT(layer_rank("container"), layer_rank("kernel_driver"));
  EXPECT_LT(layer_rank("driver_api"), layer_rank("cuda_runtime"));
  EXPECT_EQ(layer_rank("nonsense"), 9);
}

// The report files the container's plumbing under host (it has no container layer); explain's
// answer is the container's, and it ranks as such against a message.
TEST(VerdictTest, AHostRuleAboutTheContainerAnswersAsTheContainer) {
  Json f = {{"id", "host.container_without_gpu_access"},
            {"layer", "host"},
            {"severity", "error"},
            {"message", "started without GPU access"},
            {"remediation", "docker run --gpus all"}};
  auto v = decide({}, Json::array({f}));
  EXPECT_EQ(v.layer, "container");
  EXPECT_EQ(v.from, "facts");
  EXPECT_EQ(decide({}, Json::array({finding("host", "error")})).layer, "host");
  // Against a driver message the container still comes first (an earlier layer).
  EXPECT_EQ(decide({message("driver_api")}, Json::array({f})).layer, "container");
}

}  // namespace
}  // namespace cudiag::explain
