#include "workflow/version_spec.h"

#include <gtest/gtest.h>

namespace cudiag::workflow {
namespace {

VersionSpec spec(const std::string& text) {
  auto s = VersionSpec::parse(text);
  EXPECT_TRUE(s.has_value()) << text;
  return s.value_or(VersionSpec::exactly("0"));
}

TEST(WorkflowVersionSpec, ExactVersionComparesComponentwise) {
  EXPECT_TRUE(spec("550.54.15").matches("550.54.15"));
  EXPECT_FALSE(spec("550.54.15").matches("550.54.14"));
  EXPECT_TRUE(spec("12.4").matches("12.4.0"));
  EXPECT_FALSE(spec("12.4").matches("12.4.1"));
}

TEST(WorkflowVersionSpec, RangesNeedEveryPart) {
  auto s = spec(">=550,<570");
  EXPECT_TRUE(s.matches("550.54.15"));
  EXPECT_TRUE(s.matches("565.57.01"));
  EXPECT_FALSE(s.matches("570.86.10"));
  EXPECT_FALSE(s.matches("535.104.05"));
  EXPECT_TRUE(spec("> 12.3").matches("12.4"));
  EXPECT_FALSE(spec("<=12.3").matches("12.4"));
  EXPECT_TRUE(spec("!=12.5").matches("12.4"));
  EXPECT_FALSE(spec("!=12.5").matches("12.5"));
}

TEST(WorkflowVersionSpec, WildcardMatchesThePrefixOnly) {
  EXPECT_TRUE(spec("12.4.*").matches("12.4"));
  EXPECT_TRUE(spec("12.4.*").matches("12.4.131"));
  EXPECT_FALSE(spec("12.4.*").matches("12.40"));
  EXPECT_FALSE(spec("12.4.*").matches("12.5.0"));
  EXPECT_TRUE(spec("*").matches("1.0"));
}

TEST(WorkflowVersionSpec, LocalLabelsCountOnlyWhenWritten) {
  EXPECT_TRUE(spec("==2.7.0").matches("2.7.0+cu128"));
  EXPECT_TRUE(spec("==2.7.0+cu128").matches("2.7.0+cu128"));
  EXPECT_FALSE(spec("==2.7.0+cu128").matches("2.7.0+cu126"));
  EXPECT_TRUE(spec(">=2.4,<2.8").matches("2.7.0+cu128"));
  EXPECT_TRUE(spec(">=2.8").matches("2.9.0a0"));
}

TEST(WorkflowVersionSpec, BadSyntaxSaysWhy) {
  std::string why;
  EXPECT_FALSE(VersionSpec::parse(">=", &why));
  EXPECT_NE(why.find("missing"), std::string::npos) << why;
  EXPECT_FALSE(VersionSpec::parse(">=abc", &why));
  EXPECT_NE(why.find("'abc' is not a version"), std::string::npos) << why;
  EXPECT_FALSE(VersionSpec::parse(">=12.*", &why));
  EXPECT_FALSE(VersionSpec::parse("", &why));
  EXPECT_FALSE(VersionSpec::parse("12.4 beta", &why));
}

TEST(WorkflowVersionSpec, LessPreciseReadingOfAnExactOrWildcardPin) {
  EXPECT_TRUE(VersionSpec::exactly("13.1.0").matches_less_precisely("13"));
  EXPECT_TRUE(VersionSpec::exactly("12.4.5.8").matches_less_precisely("12.4"));
  EXPECT_FALSE(VersionSpec::exactly("13.0.0").matches_less_precisely("13"))
      << "13 == 13.0.0 matches outright";
  EXPECT_FALSE(VersionSpec::exactly("13.1.0").matches_less_precisely("13.2"));
  EXPECT_FALSE(VersionSpec::exactly("13.1.0").matches_less_precisely("12"));
  EXPECT_FALSE(VersionSpec::exactly("13.1.0").matches_less_precisely("13.1.0")) << "that matches outright";
  EXPECT_FALSE(VersionSpec::exactly("13.1.0").matches_less_precisely("13.1.0.1")) << "more precise, not less";
  EXPECT_TRUE(spec("==9.1.0").matches_less_precisely("9"));
  EXPECT_TRUE(spec("12.4.*").matches_less_precisely("12"));
  EXPECT_FALSE(spec(">=9.1,<10").matches_less_precisely("9")) << "a range names no one version";
  EXPECT_FALSE(VersionSpec::exactly("13.1.0").matches_less_precisely("unknown"));
}

TEST(WorkflowVersionSpec, SameButLessPrecise) {
  EXPECT_TRUE(same_but_less_precise({"9"}, {"9.19.0"}));
  EXPECT_TRUE(same_but_less_precise({"9.19.0", "12"}, {"12.4.5.8", "9"}));
  EXPECT_FALSE(same_but_less_precise({"9"}, {"10.0.0"}));
  EXPECT_FALSE(same_but_less_precise({"9"}, {"9.1", "9.2"}));
  EXPECT_FALSE(same_but_less_precise({}, {}));
}

TEST(WorkflowVersionSpec, UnparseableActualNeverMatches) {
  EXPECT_FALSE(spec(">=1").matches("unknown"));
  EXPECT_FALSE(spec("*").matches(""));
}

}  // namespace
}  // namespace cudiag::workflow
