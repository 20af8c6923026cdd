// `cudiag check --deep` on this machine: the report, then the kernel test with
// the libraries the report found, in the report's `kernel_test` key.
#include <gtest/gtest.h>

#include <regex>

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
  // The kernel test is a layer like the others: diagnosed, with an error finding naming the step.
  EXPECT_EQ(report["layer_status"]["kernel_test"], "error") << report["layer_status"].dump();
  Json driver_step;
  for (const auto& f : report["findings"]) {
    if (f["id"] == "kernel_test.driver_step_failed") driver_step = f;
  }
  ASSERT_TRUE(driver_step.is_object()) << report["findings"].dump();
  EXPECT_EQ(driver_step["severity"], "error");
  EXPECT_NE(driver_step["message"].get<std::string>().find("cuInit"), std::string::npos);
  EXPECT_EQ(report["derived"]["kernel_test"]["failures"][0]["step"], "cuInit");
}

// The kernel_test layer's status as each format shows it ("" when the output does not say).
std::string shown_status(const std::string& format, const std::string& out) {
  std::smatch m;
  if (format == "json") {
    Json j = Json::parse(out, nullptr, false);
    return j.is_object() ? j["layer_status"].value("kernel_test", "") : "";
  }
  if (format == "text" && std::regex_search(out, m, std::regex("(✓|✗|!|\\?) kernel_test"))) {
    return m[1] == "✗" ? "error" : m[1] == "✓" ? "ok" : m[1] == "!" ? "warning" : "unknown";
  }
  if (format == "md" && std::regex_search(out, m, std::regex("<b>kernel_test</b> — (\\w+)"))) return m[1];
  if (format == "html" &&
      std::regex_search(out, m, std::regex("<summary>kernel_test<span class=\"badge\">\\S+ (\\w+)</span>")))
    return m[1];
  if (format == "github" && std::regex_search(out, m, std::regex("\n  kernel_test +(\\w+)"))) return m[1];
  if (format == "junit" &&
      std::regex_search(out, m, std::regex("name=\"kernel_test\"[^>]*>([\\s\\S]*?)</testcase>"))) {
    std::string body = m[1];
    return body.find("<failure") != std::string::npos ? "error" : "ok";
  }
  return "";
}

// `check --deep` here (no GPU): every format shows the kernel test failed, and
// `analyze` of the saved JSON report shows the same in every format. One test
// per format: each runs the kernel test twice (~10 s on a loaded machine).
class KernelTestEveryFormat : public testing::TestWithParam<std::string> {};

TEST_P(KernelTestEveryFormat, CheckAndAnalyzeAgreeOnTheKernelTest) {
  const std::string format = GetParam();
  Scratch scratch("");
  auto saved = (scratch.dir() / "deep.json").string();
  auto json =
      machine_test::run_program({CUDIAG_BINARY, "check", "--deep", "--format", "json", "-o", saved}, 100);
  ASSERT_EQ(json.exit_code, 1) << json.err;
  auto check = machine_test::run_program({CUDIAG_BINARY, "check", "--deep", "--format", format}, 100);
  auto analyze = machine_test::run_program({CUDIAG_BINARY, "analyze", "--format", format, saved}, 60);
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_EQ(analyze.exit_code, 1);
  EXPECT_EQ(shown_status(format, check.out), "error") << check.out.substr(0, 3000);
  EXPECT_EQ(shown_status(format, analyze.out), "error") << analyze.out.substr(0, 3000);
  if (format == "md" || format == "text") {
    // The failure itself, not just a status: the finding, the step and the driver's answer.
    EXPECT_NE(check.out.find("kernel_test.driver_step_failed"), std::string::npos) << check.out;
    EXPECT_NE(check.out.find("CUDA_ERROR_NO_DEVICE"), std::string::npos) << check.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, KernelTestEveryFormat,
                         testing::Values("text", "json", "md", "html", "junit", "github"));

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
