#include "core/version.h"

#include <gtest/gtest.h>

namespace cudiag {
namespace {

TEST(VersionTest, ParsesAndComparesNumerically) {
  auto a = Version::parse("535.104.05");
  auto b = Version::parse("535.54.03");
  ASSERT_TRUE(a && b);
  EXPECT_GT(*a, *b);  // 104 > 54 numerically, not as text
  EXPECT_EQ(a->text(), "535.104.05");
  EXPECT_EQ(*Version::parse("470"), *Version::parse("470.0"));
  EXPECT_FALSE(Version::parse("12.x"));
  EXPECT_FALSE(Version::parse(""));
  EXPECT_FALSE(Version::parse("12."));
}

TEST(VersionTest, CudaIntegerEncoding) {
  EXPECT_EQ(Version::from_cuda_int(12020).text(), "12.2");
  EXPECT_EQ(Version::from_cuda_int(13000).text(), "13.0");
  EXPECT_EQ(Version::parse("12.4")->to_cuda_int(), 12040);
}

}  // namespace
}  // namespace cudiag
