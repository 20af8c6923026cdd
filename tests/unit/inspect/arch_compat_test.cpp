#include "inspect/arch_compat.h"

#include <gtest/gtest.h>

#include "inspect/driver_ptx.h"
#include "inspect/gpu_arch.h"

namespace cudiag::inspect {
namespace {

GpuArch A(const char* s) {
  auto a = parse_gpu_arch(s);
  EXPECT_TRUE(a) << s;
  return a.value_or(GpuArch{});
}

TEST(ArchCompatTest, ParsesTheWaysArchesAreWritten) {
  struct Case {
    const char* text;
    int major, minor;
    ArchVariant variant;
  } cases[] = {
      {"sm_90a", 9, 0, ArchVariant::kA},     {"compute_100f", 10, 0, ArchVariant::kF},
      {"sm_121", 12, 1, ArchVariant::kNone}, {"120", 12, 0, ArchVariant::kNone},
      {"8.6", 8, 6, ArchVariant::kNone},     {"lto_90", 9, 0, ArchVariant::kNone},
      {"10.3a", 10, 3, ArchVariant::kA},     {"sm_75", 7, 5, ArchVariant::kNone},
  };
  for (const auto& c : cases) {
    auto a = parse_gpu_arch(c.text);
    ASSERT_TRUE(a) << c.text;
    EXPECT_EQ(a->major, c.major) << c.text;
    EXPECT_EQ(a->minor, c.minor) << c.text;
    EXPECT_EQ(a->variant, c.variant) << c.text;
  }
  for (const char* bad : {"", "sm_", "sm_90x", "9", "12.10", "sm_-5", "compute_", "a90", "9.0.1"})
    EXPECT_FALSE(parse_gpu_arch(bad)) << bad;
  EXPECT_EQ(sm_name(A("12.0f")), "sm_120f");
  EXPECT_EQ(compute_name(A("sm_100a")), "compute_100a");
}

TEST(ArchCompatTest, SassRunsWithinAMajorAtEqualOrHigherMinor) {
  struct Case {
    const char* image;
    const char* device;
    bool runs;
  } cases[] = {
      {"sm_80", "sm_80", true},     {"sm_80", "sm_86", true},     {"sm_80", "sm_89", true},
      {"sm_86", "sm_80", false},    {"sm_80", "sm_90", false},    {"sm_90", "sm_100", false},
      {"sm_90a", "sm_90", true},    {"sm_100a", "sm_103", false}, {"sm_103a", "sm_103", true},
      {"sm_100f", "sm_103", true},  {"sm_100f", "sm_100", true},  {"sm_103f", "sm_100", false},
      {"sm_100f", "sm_110", false}, {"sm_120f", "sm_121", true},  {"sm_120", "sm_121", true},
  };
  for (const auto& c : cases)
    EXPECT_EQ(sass_runs_on(A(c.image), A(c.device)), c.runs) << c.image << " on " << c.device;
}

TEST(ArchCompatTest, PtxJitsForwardExceptArchSpecific) {
  struct Case {
    const char* image;
    const char* device;
    bool jits;
  } cases[] = {
      {"compute_75", "sm_120", true},    {"compute_90", "sm_90", true},    {"compute_90", "sm_89", false},
      {"compute_90a", "sm_90", true},    {"compute_90a", "sm_100", false}, {"compute_100f", "sm_103", true},
      {"compute_100f", "sm_120", false}, {"compute_120", "sm_121", true},  {"compute_121", "sm_120", false},
  };
  for (const auto& c : cases)
    EXPECT_EQ(ptx_jits_for(A(c.image), A(c.device)), c.jits) << c.image << " on " << c.device;
}

TEST(ArchCompatTest, DriverBranchGivesCudaVersionAndPtxIsa) {
  struct Case {
    const char* driver;
    const char* cuda;
    PtxIsa isa;
  } cases[] = {
      {"550.54.15", "12.4", {8, 4}}, {"535.104.05", "12.2", {8, 2}}, {"580.65.06", "13.0", {9, 0}},
      {"470.82.01", "11.4", {7, 4}}, {"565.57.01", "12.7", {8, 6}},  {"560.35.03", "12.6", {8, 5}},
  };
  for (const auto& c : cases) {
    auto s = driver_ptx_support(*Version::parse(c.driver));
    ASSERT_TRUE(s) << c.driver;
    EXPECT_EQ(s->cuda.text(), c.cuda) << c.driver;
    EXPECT_EQ(s->max_isa, c.isa) << c.driver;
    EXPECT_FALSE(s->newer_than_table);
  }
  EXPECT_FALSE(driver_ptx_support(*Version::parse("375.26")));
  EXPECT_TRUE(driver_ptx_support(*Version::parse("610.1"))->newer_than_table);
}

}  // namespace
}  // namespace cudiag::inspect
