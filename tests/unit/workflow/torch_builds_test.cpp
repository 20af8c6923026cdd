#include "workflow/torch_builds.h"

#include <gtest/gtest.h>

#include "kb/knowledge_base.h"

namespace cudiag::workflow {
namespace {

const kb::KnowledgeBase& kb() { return kb::KnowledgeBase::builtin(); }

TEST(WorkflowTorchBuilds, LabelNamesTheCudaBuild) {
  EXPECT_EQ(torch_label_cuda("2.7.0+cu128")->text(), "12.8");
  EXPECT_EQ(torch_label_cuda("2.5.1+cu124")->text(), "12.4");
  EXPECT_EQ(torch_label_cuda("1.13.1+cu117.with.pypi.cudnn")->text(), "11.7");
  EXPECT_FALSE(torch_label_cuda("2.5.1"));
  EXPECT_FALSE(torch_label_cuda("2.5.1+cpu"));
  EXPECT_FALSE(torch_label_cuda("2.5.1+rocm6.2"));
}

TEST(WorkflowTorchBuilds, PlainVersionIsTheReleasesDefaultPypiBuild) {
  auto d = torch_pypi_default(kb(), "2.5.1");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->cuda.text(), "12.4");
  EXPECT_EQ(d->release, "2.5");
  EXPECT_EQ(d->confidence, "single-source");
  ASSERT_EQ(d->sources.size(), 1u);
  EXPECT_NE(d->sources[0].find("promote_pypi_to_staging.sh"), std::string::npos);

  EXPECT_EQ(torch_pypi_default(kb(), "2.4.1")->cuda.text(), "12.1")
      << "2.4's PyPI wheel was cu121, not cu124";
  EXPECT_EQ(torch_pypi_default(kb(), "2.7.0")->cuda.text(), "12.6");
  EXPECT_EQ(torch_pypi_default(kb(), "2.7.0")->sources.size(), 2u);
  EXPECT_EQ(torch_pypi_default(kb(), "2.9.0")->confidence, "disputed");
  EXPECT_FALSE(torch_pypi_default(kb(), "2.9.0")->note.empty());
  EXPECT_EQ(torch_pypi_default(kb(), "2.11.0")->cuda.text(), "13.0");
  EXPECT_EQ(torch_pypi_default(kb(), "2.1")->cuda.text(), "12.1") << "the release alone";
}

TEST(WorkflowTorchBuilds, NoDefaultForALabelOrAnUnknownRelease) {
  EXPECT_FALSE(torch_pypi_default(kb(), "2.5.1+cu118"));
  EXPECT_FALSE(torch_pypi_default(kb(), "2.5.1+cpu"));
  EXPECT_FALSE(torch_pypi_default(kb(), "9.9.0"));
  EXPECT_FALSE(torch_pypi_default(kb(), "latest"));
}

// Every torch row has a default, and (but for 1.12's cu102, recorded in its note) it is one of the
// CUDA builds the row says were published.
TEST(WorkflowTorchBuilds, EveryTorchRowsDefaultIsAPublishedVariant) {
  int rows = 0;
  for (const auto& e : kb().raw("framework_matrix")["entries"]) {
    if (e.value("framework", "") != "torch") continue;
    ++rows;
    std::string release = e.value("release", "");
    if (!e.contains("pypi_default")) {
      // Releases whose PyPI CUDA no source states (1.0, 1.1, 1.9-1.11): unknown stays unknown, and
      // the row says why.
      EXPECT_FALSE(torch_pypi_default(kb(), release + ".0")) << release;
      EXPECT_TRUE(e.contains("note")) << release;
      continue;
    }
    auto d = torch_pypi_default(kb(), release + ".0");
    ASSERT_TRUE(d) << release;
    EXPECT_FALSE(d->sources.empty()) << release;
    bool listed = false;
    for (const auto& c : e["cuda_variants"]) listed = listed || c.get<std::string>() == d->cuda.text();
    // 1.12's cu102 default is listed too: download.pytorch.org published cu102 wheels (issue #13).
    EXPECT_TRUE(listed) << release << " default " << d->cuda.text();
  }
  EXPECT_GE(rows, 17);
}

}  // namespace
}  // namespace cudiag::workflow
