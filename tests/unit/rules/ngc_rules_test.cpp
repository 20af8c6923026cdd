// NGC framework containers name a monthly release whose driver requirement the knowledge base holds
// (data/kb/ngc_containers.json): the rule names the branch it needs, or the newest release the stated
// driver runs. Cases from https://github.com/triton-inference-server/server/issues/3773 (21.10 on
// driver 455.45.01) and the release notes the table quotes.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/errors.h"
#include "kb/knowledge_base.h"
#include "kb/ngc_containers.h"
#include "report/assume.h"
#include "report/collect.h"
#include "rules/engine.h"
#include "stated_findings.h"

namespace cudiag {
namespace {

using test::findings_for;

const rules::Finding* ngc_finding(const std::vector<rules::Finding>& fs) {
  return test::find_finding(fs, "container.ngc_driver_too_old");
}

TEST(NgcRulesTest, ADriverBelowTheReleasesBranchAndItsDataCenterBranchesNamesBoth) {
  auto fs = findings_for({"ngc=21.10", "driver=455.45.01"});
  const auto* f = ngc_finding(fs);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->layer, "driver_api");
  EXPECT_NE(f->message.find("CUDA 11.4.2"), std::string::npos) << f->message;
  EXPECT_NE(f->remediation.find("R470"), std::string::npos) << f->remediation;
  // The newest release of the table that R455 runs is named as the other way out.
  EXPECT_NE(f->remediation.find("or older, the newest this driver runs"), std::string::npos)
      << f->remediation;
}

TEST(NgcRulesTest, TheRequiredBranchOrADataCenterBranchOnADataCenterGpuRunsIt) {
  EXPECT_EQ(ngc_finding(findings_for({"ngc=21.10", "driver=470.57.02"})), nullptr);
  // R450 (450.51 or later) is one of 21.10's data-center branches: a T4 runs it, a GeForce does not.
  EXPECT_EQ(ngc_finding(findings_for({"ngc=21.10", "driver=450.80.02", "gpu=Tesla T4"})), nullptr);
  const auto on_geforce = findings_for({"ngc=21.10", "driver=450.80.02", "gpu=RTX 3090"});
  const auto* geforce = ngc_finding(on_geforce);
  ASSERT_NE(geforce, nullptr);
  EXPECT_NE(geforce->message.find("only on data-center GPUs"), std::string::npos) << geforce->message;
  // With the GPU unknown, a data-center branch is not presumed wrong.
  EXPECT_EQ(ngc_finding(findings_for({"ngc=21.10", "driver=450.80.02"})), nullptr);
}

// Inside an NGC container the probe names the image from NVIDIA_PYTORCH_VERSION: the same rule applies.
TEST(NgcRulesTest, TheImageCudiagRunsInNamesItsRelease) {
  Json report = report::new_report();
  report["container"]["image"] = {{"value", "NGC PyTorch 21.10"}, {"source", "env:NVIDIA_PYTORCH_VERSION"}};
  report::apply_assumptions(report, {"driver=455.45.01"}, kb::KnowledgeBase::builtin());
  auto fs = rules::diagnose(report, kb::KnowledgeBase::builtin()).findings;
  const auto* f = ngc_finding(fs);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("release 21.10"), std::string::npos) << f->message;
}

TEST(NgcRulesTest, TheReleaseStatesItsCudaAndAnUnknownReleaseIsAUsageError) {
  Json report = report::new_report();
  report::apply_assumptions(report, {"ngc=21.10"}, kb::KnowledgeBase::builtin());
  EXPECT_EQ(report["cuda_runtime"]["runtimes"][0]["runtime_version"]["value"], "11.4");
  EXPECT_EQ(report["host"]["container"]["kind"]["value"], "docker");
  EXPECT_THROW(report::apply_assumptions(report, {"ngc=99.01"}, kb::KnowledgeBase::builtin()), InputError);
}

TEST(NgcRulesTest, EveryReleaseOfTheTableHasItsCudaBranchAndSource) {
  auto all = kb::ngc_releases(kb::KnowledgeBase::builtin());
  ASSERT_GE(all.size(), 50u);
  for (const auto& r : all) {
    EXPECT_GE(r.driver_branch, 384) << r.release;
    EXPECT_GE(r.cuda.major(), 10) << r.release;
    EXPECT_EQ(r.source.rfind("https://docs.nvidia.com/", 0), 0u) << r.release << " " << r.source;
  }
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end(), [](const kb::NgcRelease& a, const kb::NgcRelease& b) {
    return a.release < b.release;
  }));
}

// 20.10 (CUDA 11.1) on R418: a data-center GPU runs it through the image's forward-compatibility package,
// so the runtime is not reported as needing a newer driver there; on a GeForce both rules fail it.
TEST(NgcRulesTest, OnADataCenterGpuTheImagesCompatPackageRunsItsCudaOnAnOlderBranch) {
  auto datacenter = findings_for({"ngc=20.10", "driver=418.87.01", "gpu=Tesla V100-SXM2-16GB"});
  EXPECT_EQ(ngc_finding(datacenter), nullptr);
  EXPECT_EQ(test::find_finding(datacenter, "cuda_runtime.needs_newer_driver"), nullptr);
  auto geforce = findings_for({"ngc=20.10", "driver=418.87.01", "gpu=GeForce RTX 2080"});
  EXPECT_NE(ngc_finding(geforce), nullptr);
  EXPECT_NE(test::find_finding(geforce, "cuda_runtime.needs_newer_driver"), nullptr);
  // Without the NGC image the same runtime on the same driver still needs a newer one.
  auto plain = findings_for({"cuda_runtime=11.1", "driver=418.87.01", "gpu=Tesla V100-SXM2-16GB"});
  EXPECT_NE(test::find_finding(plain, "cuda_runtime.needs_newer_driver"), nullptr);
}

// The framework in the image is built for the image's CUDA: the package runs it too. A build for a newer
// CUDA than the image's (pip-installed on top) is beyond what the package serves.
TEST(NgcRulesTest, TheCompatPackageRunsTheImagesFrameworkBuildButNotANewerOne) {
  const std::vector<std::string> v100 = {"ngc=20.10", "driver=418.87.01", "gpu=Tesla V100-SXM2-16GB"};
  auto with = [&](std::vector<std::string> base, const std::string& extra) {
    base.push_back(extra);
    return findings_for(base);
  };
  EXPECT_EQ(test::find_finding(with(v100, "torch=1.7.0+cu110"), "frameworks.cuda_build_needs_newer_driver"),
            nullptr);
  EXPECT_NE(test::find_finding(with(v100, "torch=2.1.0+cu121"), "frameworks.cuda_build_needs_newer_driver"),
            nullptr);
  const std::vector<std::string> geforce = {"ngc=20.10", "driver=418.87.01", "gpu=GeForce RTX 2080"};
  EXPECT_NE(
      test::find_finding(with(geforce, "torch=1.7.0+cu110"), "frameworks.cuda_build_needs_newer_driver"),
      nullptr);
}

}  // namespace
}  // namespace cudiag
