// The newest CUDA the knowledge base knows: the one definition the explain checks share.
#include "kb/newest_cuda.h"

#include <gtest/gtest.h>

namespace cudiag::kb {
namespace {

TEST(NewestCudaTest, IsTheHighestMajorOfTheMvcRowsAndTheToolkitReleases) {
  const auto& kb = KnowledgeBase::builtin();
  const auto* mvc = newest_mvc(kb);
  ASSERT_NE(mvc, nullptr);
  for (const auto& m : kb.mvc()) EXPECT_LE(m.cuda_major, mvc->cuda_major);
  const long newest = newest_cuda_major(kb);
  EXPECT_GE(newest, mvc->cuda_major);
  bool some_release_is_newest = false;
  for (const auto& t : kb.toolkit_releases()) {
    EXPECT_LE(t.cuda.major(), newest);
    some_release_is_newest = some_release_is_newest || t.cuda.major() == newest;
  }
  EXPECT_TRUE(some_release_is_newest);
  // The branch current images need is a real branch of that major (R580 for CUDA 13 when written).
  EXPECT_GE(mvc->min_branch, 400);
  EXPECT_GE(newest, 13);  // the tables reached CUDA 13 when this was written; they never go back
}

}  // namespace
}  // namespace cudiag::kb
