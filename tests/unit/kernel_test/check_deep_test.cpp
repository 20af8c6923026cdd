// `cudiag check --deep` on this machine: the report, then the kernel test with
// the libraries the report found, in the report's `kernel_test` key.
#include <gtest/gtest.h>

#include "kernel_test_util.h"

namespace cudiag::kernel_test_test {
namespace {

TEST(KernelTestCheckDeep, PutsTheKernelTestInTheReportAndExitsOne) {
  auto r = machine_test::run_program({CUDIAG_BINARY, "check", "--deep", "--format", "json"}, 300);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  Json report = Json::parse(r.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << r.out.substr(0, 500);
  const auto& kt = report["kernel_test"];
  EXPECT_EQ(kt["status"], "fail");
  EXPECT_EQ(kt["first_failure"]["step"], "cuInit");
  // The libcuda under test is the one the report says the loader picks.
  EXPECT_EQ(kt["driver"]["library"], report["driver_api"]["picked"]["value"]);
  // Frameworks the report's frameworks layer did not find are not imported at all.
  for (const auto& f : kt["frameworks"]) {
    if (f.value("source", "") == "report frameworks layer") {
      EXPECT_EQ(f["status"], "not installed");
    }
  }
}

TEST(KernelTestCheckDeep, DebiansCpuOnlyTorchFailsWithItsOwnWords) {
  if (!fs::exists("/usr/lib/python3/dist-packages/torch")) GTEST_SKIP() << "no Debian torch here";
  auto r = machine_test::run_program({CUDIAG_BINARY, "check", "--deep", "--format", "json"}, 300);
  Json report = Json::parse(r.out, nullptr, false);
  ASSERT_TRUE(report.is_object());
  Json torch;
  for (const auto& f : report["kernel_test"]["frameworks"]) {
    if (f["python"] == "/usr/bin/python3" && f["framework"] == "torch") torch = f;
  }
  ASSERT_TRUE(torch.is_object()) << report["kernel_test"]["frameworks"].dump();
  EXPECT_EQ(torch["status"], "fail");
  EXPECT_EQ(torch["error"], "AssertionError: Torch not compiled with CUDA enabled");
}

}  // namespace
}  // namespace cudiag::kernel_test_test
