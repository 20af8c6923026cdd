// workflow::plan_change, the logic behind `cudiag plan`, on the workflow
// fixture (an 8×H100 node with driver 550.54.15, the CUDA 12.4 runtime and
// torch 2.4.1+cu124) and the real knowledge base. The verdict whether a CUDA
// version runs on a driver is rules/runtime_compat's, so the plan and the rules
// cannot disagree; PlanAgreesWithTheRules pins the case where they once did.
#include "workflow/plan.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/errors.h"
#include "kb/knowledge_base.h"

namespace cudiag::workflow {
namespace {

Json node_550() {
  std::ifstream in(std::string(CUDIAG_TEST_DIR) + "/unit/workflow/node-550.report.json");
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

// The plan for one changed layer: "driver", "cuda", "torch" or "gpu".
Plan plan_for(const std::string& layer, const std::string& value) {
  PlanRequest r;
  (layer == "driver" ? r.driver : layer == "cuda" ? r.cuda : layer == "torch" ? r.torch : r.gpu) = value;
  return plan_change(node_550(), kb::KnowledgeBase::builtin(), r);
}

bool has(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

TEST(WorkflowPlan, DriverUpgradeGoesFirstAndNeedsNothingElse) {
  auto p = plan_for("driver", "570.86.10");
  EXPECT_EQ(p.change, "driver 550.54.15 -> 570.86.10");
  EXPECT_TRUE(p.also_must_move.empty());
  ASSERT_EQ(p.order.size(), 1u);
  EXPECT_EQ(
      p.order[0],
      "kernel_driver: install driver 570.86.10 (reports CUDA 12.8); newer drivers run older runtimes, so it "
      "goes first");
  EXPECT_EQ(p.assumptions, std::vector<std::string>{"driver=570.86.10"});
}

TEST(WorkflowPlan, DriverDowngradeBelowTheRuntimesMajorNeedsThemMovedFirst) {
  auto p = plan_for("driver", "470.57.02");
  EXPECT_TRUE(
      has(p.also_must_move, "cuda_runtime 12.4 needs driver >= 550.54.14: move it to CUDA <= 11.4 first"))
      << testing::PrintToString(p.also_must_move);
  EXPECT_TRUE(has(p.also_must_move, "torch.cuda 12.4 needs driver >= 550.54.14"));
  ASSERT_EQ(p.order.size(), 1u);
  EXPECT_EQ(p.order[0].find("goes first"), std::string::npos) << "a downgrade does not go first";
}

TEST(WorkflowPlan, DriverDowngradeWithinTheMajorIsMinorVersionCompatibility) {
  auto p = plan_for("driver", "535.104.05");
  EXPECT_TRUE(has(p.also_must_move,
                  "cuda_runtime 12.4 would run only under minor-version compatibility (driver >= 550.54.14"))
      << testing::PrintToString(p.also_must_move);
}

// A 550.40.07 driver reports CUDA 12.4, and the rules find a CUDA 12.4 runtime compatible with it (no
// cuda_runtime finding under --assume driver=550.40.07). The plan once said "minor-version compatibility
// only" from the release table's 550.54.14; it now asks runtime_compat, as the rules do.
TEST(WorkflowPlan, PlanAgreesWithTheRules) {
  auto p = plan_for("driver", "550.40.07");
  EXPECT_TRUE(p.also_must_move.empty()) << testing::PrintToString(p.also_must_move);
  EXPECT_TRUE(has(p.order, "(reports CUDA 12.4)"));
}

TEST(WorkflowPlan, NewerCudaRuntimeMovesTheDriverFirst) {
  auto p = plan_for("cuda", "12.8");
  EXPECT_EQ(p.change, "CUDA runtime -> 12.8");
  ASSERT_FALSE(p.also_must_move.empty());
  EXPECT_EQ(p.also_must_move[0].find("driver 550.54.15 must move to >= 570"), 0u) << p.also_must_move[0];
  ASSERT_EQ(p.order.size(), 2u);
  EXPECT_EQ(p.order[0].find("kernel_driver: install a driver >= 570"), 0u) << p.order[0];
  EXPECT_EQ(p.order[1], "cuda_runtime: install CUDA 12.8");
  EXPECT_EQ(p.assumptions, std::vector<std::string>{"cuda_runtime=12.8"});
}

TEST(WorkflowPlan, OlderCudaRuntimeNeedsNothing) {
  auto p = plan_for("cuda", "12.2");
  EXPECT_TRUE(p.also_must_move.empty()) << testing::PrintToString(p.also_must_move);
  EXPECT_EQ(p.order, std::vector<std::string>{"cuda_runtime: install CUDA 12.2"});
}

TEST(WorkflowPlan, PlainTorchIsItsDefaultPypiBuildAndIsNotOverlaid) {
  auto p = plan_for("torch", "2.5.1");
  EXPECT_EQ(p.change, "torch -> 2.5.1 (CUDA 12.4)");
  ASSERT_FALSE(p.notes.empty());
  EXPECT_NE(p.notes[0].find("entry torch 2.5"), std::string::npos) << p.notes[0];
  EXPECT_TRUE(p.assumptions.empty()) << "a torch build is not an --assume fact";
  EXPECT_EQ(p.order, std::vector<std::string>{"frameworks: install torch 2.5.1"});
}

TEST(WorkflowPlan, NewGpuMovesDriverAndRuntimesBeforeTheGpu) {
  auto p = plan_for("gpu", "RTX 5090");
  EXPECT_NE(p.change.find("sm_120"), std::string::npos) << p.change;
  EXPECT_TRUE(has(p.also_must_move, "cuda_runtime 12.4 has no sm_120 code: move to CUDA >= 12.8"));
  ASSERT_EQ(p.order.size(), 3u);
  EXPECT_EQ(p.order[0].find("kernel_driver:"), 0u);
  EXPECT_EQ(p.order[2], "install the GPU (RTX 5090) last, onto a stack that already supports it");
}

TEST(WorkflowPlan, UnreadableRequestsAreBadInput) {
  EXPECT_THROW(plan_for("driver", "abc"), InputError);
  EXPECT_THROW(plan_for("torch", "2.5.1+cpu"), InputError);
  EXPECT_THROW(plan_for("torch", "9.9.0"), InputError);
  EXPECT_THROW(plan_for("gpu", "no such gpu"), InputError);
}

TEST(WorkflowPlan, ErrorChangesCompareErrorFindingsOnly) {
  Json before = {{"findings",
                  {{{"id", "a.x"}, {"severity", "error"}, {"message", "m1"}},
                   {{"id", "b.y"}, {"severity", "warning"}, {"message", "m2"}}}}};
  Json after = {{"findings",
                 {{{"id", "c.z"}, {"severity", "error"}, {"message", "m3"}},
                  {{"id", "b.y"}, {"severity", "error"}, {"message", "m2"}}}}};
  auto c = error_changes(before, after);
  EXPECT_EQ(c.resolved, std::vector<std::string>{"a.x: m1"});
  EXPECT_EQ(c.introduced, (std::vector<std::string>{"b.y: m2", "c.z: m3"}));
  Plan plan;
  plan.change = "x";
  Json j = plan_json(plan, c);
  EXPECT_EQ(j["change"], "x");
  EXPECT_EQ(j["findings_introduced"].size(), 2u);
}

}  // namespace
}  // namespace cudiag::workflow
