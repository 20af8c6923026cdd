#include "workflow/report_diff.h"

#include <gtest/gtest.h>

#include "kb/knowledge_base.h"
#include "workflow_test_util.h"

namespace cudiag::workflow {
namespace {

TEST(WorkflowReportDiff, LessPreciseLibraryVersionIsNotAChange) {
  Json a = testing::fixture_report();
  Json b = a;
  a["libraries"]["cudnn"]["distinct_versions"] = {"9"};  // --no-library-calls: the soname's major only
  auto d = diff_reports(a, b, kb::KnowledgeBase::builtin());
  EXPECT_FALSE(d.matters()) << render_diff_text(d, "a", "b");
  b["libraries"]["cudnn"]["distinct_versions"] = {"8.9.7"};
  d = diff_reports(a, b, kb::KnowledgeBase::builtin());
  ASSERT_TRUE(d.matters());
  EXPECT_EQ(d.compatibility[0].key, "cudnn");
}

TEST(WorkflowReportDiff, NewErrorFindingMattersAndComesInLayerOrder) {
  Json a = testing::fixture_report();
  Json b = a;
  b["findings"] = Json::array({{{"id", "kernel_driver.uvm_missing"},
                                {"layer", "kernel_driver"},
                                {"severity", "error"},
                                {"message", "/dev/nvidia-uvm is missing"}}});
  b["frameworks"]["environments"][0]["frameworks"][0]["build"]["cuda"]["value"] = "12.1";
  auto d = diff_reports(a, b, kb::KnowledgeBase::builtin());
  ASSERT_EQ(d.compatibility.size(), 2u) << render_diff_text(d, "a", "b");
  EXPECT_EQ(d.compatibility[0].key, "finding kernel_driver.uvm_missing");
  EXPECT_EQ(d.compatibility[0].after, "error: /dev/nvidia-uvm is missing");
  EXPECT_EQ(d.compatibility[1].key, "torch.cuda");
}

}  // namespace
}  // namespace cudiag::workflow
