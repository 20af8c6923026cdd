#include "workflow/requirements.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "kb/knowledge_base.h"
#include "workflow_test_util.h"

namespace cudiag::workflow {
namespace {

RequirementResult eval(const std::string& text, const Json& report) {
  return evaluate(parse_requirement(text), read_stack(report, kb::KnowledgeBase::builtin()));
}

TEST(WorkflowRequirements, SatisfiedOnTheFixtureNode) {
  auto report = testing::fixture_report();
  for (const char* r :
       {"driver>=550", "driver>=550,<570", "driver.cuda==12.4", "cuda_runtime>=12.0", "cuda_runtime==12.4.*",
        "cudnn>=9", "cudnn", "nccl==2.21.5", "torch.cuda==12.4", "torch>=2.4", "torch==2.4.1+cu124",
        "gpu.cc==9.0", "gpu.count==8", "gpu.name==H100"}) {
    auto res = eval(r, report);
    EXPECT_TRUE(res.satisfied) << r << ": " << res.message;
  }
}

TEST(WorkflowRequirements, UnsatisfiedSaysWhatWasFound) {
  auto report = testing::fixture_report();
  auto res = eval("driver>=570", report);
  EXPECT_FALSE(res.satisfied);
  EXPECT_EQ(res.actual, "550.54.15");
  EXPECT_EQ(res.message, "driver 550.54.15 does not satisfy >=570");
  res = eval("torch.cuda==12.8", report);
  EXPECT_FALSE(res.satisfied);
  EXPECT_EQ(res.actual, "12.4");
  EXPECT_FALSE(eval("gpu.count>=16", report).satisfied);
  EXPECT_FALSE(eval("tensorrt", report).satisfied);
}

TEST(WorkflowRequirements, EveryRuntimeMustSatisfy) {
  auto report = testing::fixture_report();
  Json second = report["cuda_runtime"]["runtimes"][0];
  second["real_path"] = "/opt/venv/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.11.0";
  second["runtime_version"]["value"] = "11.8";
  report["cuda_runtime"]["runtimes"].push_back(second);
  auto res = eval("cuda_runtime>=12.0", report);
  EXPECT_FALSE(res.satisfied);
  EXPECT_EQ(res.actual, "12.4, 11.8");
  EXPECT_NE(res.message.find("11.8 (of 12.4, 11.8)"), std::string::npos) << res.message;
}

TEST(WorkflowRequirements, KernelTestAbsentIsNotRun) {
  auto report = testing::fixture_report();
  auto res = eval("kernel-test", report);
  EXPECT_FALSE(res.satisfied);
  EXPECT_EQ(res.message, "the kernel test was not run; use --deep");
  // The kernel_test section as src/kernel_test/run.cpp writes it (schema: status pass | fail | not run).
  report["kernel_test"] = {{"status", "pass"}};
  EXPECT_TRUE(eval("kernel-test", report).satisfied);
  report["kernel_test"] = {{"status", "fail"}};
  EXPECT_FALSE(eval("kernel_test", report).satisfied);
  report["kernel_test"] = {{"status", "not run"}};
  EXPECT_EQ(eval("kernel_test", report).message, "the kernel test was not run; use --deep");
}

TEST(WorkflowRequirements, FrameworksAbsentFromTheReport) {
  auto report = testing::fixture_report();
  report.erase("frameworks");
  auto res = eval("torch.cuda==12.4", report);
  EXPECT_FALSE(res.satisfied);
  EXPECT_EQ(res.message, "frameworks were not collected");
}

TEST(WorkflowRequirements, BadSyntaxIsInputError) {
  for (const char* bad : {"drivr>=550", "driver>=", "driver=>550", "driver~550", ">=550", "kernel-test==1",
                          "torch.rocm==6", "driver>=abc"}) {
    EXPECT_THROW(parse_requirement(bad), InputError) << bad;
  }
  try {
    parse_requirement("drivr>=550");
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--require 'drivr>=550': unknown key 'drivr'"), std::string::npos)
        << e.what();
  }
}

TEST(WorkflowRequirements, JsonShape) {
  auto report = testing::fixture_report();
  auto j = requirements_to_json({eval("driver>=550", report), eval("jax", report)});
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["requirement"], "driver>=550");
  EXPECT_EQ(j[0]["satisfied"], true);
  EXPECT_EQ(j[0]["actual"], "550.54.15");
  EXPECT_EQ(j[1]["satisfied"], false);
  EXPECT_TRUE(j[1]["actual"].is_null());
}

}  // namespace
}  // namespace cudiag::workflow
