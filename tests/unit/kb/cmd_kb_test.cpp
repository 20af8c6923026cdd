// `cudiag kb` end to end: runs the built binary.
#include <gtest/gtest.h>

#include <string>

#include "../run_cudiag.h"
#include "core/json.h"

namespace cudiag {
namespace {

// stdout and stderr together, as a user sees them.
test_run::RunResult run_cudiag(const std::string& args) { return test_run::run_cudiag_merged(args); }

TEST(CmdKbTest, DriverFor128ShowsFullMvcAndBundled) {
  auto r = run_cudiag("kb driver-for 12.8");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("driver >= 570.26"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("driver >= 525.60.13"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("570.86.10"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("https://docs.nvidia.com/cuda/cuda-toolkit-release-notes"), std::string::npos)
      << r.out;
  std::size_t start = 0;
  while (start < r.out.size()) {
    auto end = r.out.find('\n', start);
    if (end == std::string::npos) end = r.out.size();
    std::string line = r.out.substr(start, end - start);
    // URLs are never broken; everything else fits 80 columns.
    if (line.find("https://") == std::string::npos) {
      EXPECT_LE(line.size(), 80u) << line;
    }
    start = end + 1;
  }
}

TEST(CmdKbTest, DriverForJson) {
  auto r = run_cudiag("kb driver-for 12.4 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  Json j = Json::parse(r.out);
  EXPECT_EQ(j["full"]["min"], "550.54.14");
  EXPECT_EQ(j["minor_version_compat"]["min"], "525.60.13");
  EXPECT_FALSE(j["sources"].empty());
}

TEST(CmdKbTest, UnknownQueriesExit2WithOneLine) {
  auto r = run_cudiag("kb arch sm_99");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "cudiag: error: sm_99: no such architecture in the knowledge base\n");
  EXPECT_EQ(run_cudiag("kb error 123456").exit_code, 2);
  EXPECT_EQ(run_cudiag("kb gpu 'Voodoo 5'").exit_code, 2);
  EXPECT_EQ(run_cudiag("kb gpu 'RTX PRO 9999'").exit_code, 2);  // no partial match on "RTX"
}

// Issue #13: a release the KB lacks is unknown, with the nearest rows shown as such, never answered
// with a neighbour's minimum (exit 1: a finding, not bad input).
TEST(CmdKbTest, UnknownReleaseIsUnknownNotANeighbour) {
  auto r = run_cudiag("kb driver-for 12.7");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("unknown"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Nearest known releases (not this release's answer)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("12.6.3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("12.8.0"), std::string::npos) << r.out;
  auto u = run_cudiag("kb driver-for 13.2.1");
  EXPECT_EQ(u.exit_code, 0);
  EXPECT_NE(u.out.find("driver >= 595.58.03"), std::string::npos) << u.out;
  EXPECT_EQ(u.out.find("595.45.04"), std::string::npos) << u.out;
  auto n = run_cudiag("kb driver-for 13.6.2");
  EXPECT_EQ(n.exit_code, 1);
  EXPECT_NE(n.out.find("13.5.0"), std::string::npos) << n.out;
}

TEST(CmdKbTest, GpuMatchesMostSpecificProduct) {
  auto r = run_cudiag("kb gpu 'RTX PRO 5000 Blackwell'");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("cc 12.0"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Quadro RTX 5000"), std::string::npos) << r.out;
  // "6000" names Quadro RTX 6000 (7.5), RTX 6000 Ada (8.9) and RTX PRO 6000 Blackwell (12.0): ambiguous.
  auto amb = run_cudiag("check --no-collect --assume gpu=6000");
  EXPECT_EQ(amb.exit_code, 2) << amb.out;
  EXPECT_NE(amb.out.find("ambiguous"), std::string::npos) << amb.out;
  EXPECT_NE(amb.out.find("(cc 7.5)"), std::string::npos) << amb.out;
  auto a = run_cudiag("check --no-collect --assume 'gpu=RTX PRO 5000 Blackwell' --format json");
  EXPECT_NE(a.out.find("\"12.0\""), std::string::npos);
  EXPECT_EQ(a.out.find("Quadro RTX 5000"), std::string::npos);
}

TEST(CmdKbTest, OtherSubcommands) {
  auto err = run_cudiag("kb error 804");
  EXPECT_EQ(err.exit_code, 0);
  EXPECT_NE(err.out.find("CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"), std::string::npos);
  EXPECT_NE(err.out.find("cudaErrorCompatNotSupportedOnDevice"), std::string::npos);
  EXPECT_EQ(run_cudiag("kb error 804 --api nvml").exit_code, 2);
  // The libraries' statuses print in text too, named with their API's type.
  for (const char* status :
       {"CUBLAS_STATUS_NOT_INITIALIZED", "CUSOLVER_STATUS_INTERNAL_ERROR", "ncclSystemError"}) {
    auto lib = run_cudiag(std::string("kb error ") + status);
    EXPECT_EQ(lib.exit_code, 0) << status << ": " << lib.out << lib.err;
    EXPECT_NE(lib.out.find(status), std::string::npos) << lib.out;
  }
  EXPECT_NE(run_cudiag("kb error CUFFT_INTERNAL_ERROR").out.find("cuFFT (cufftResult)"), std::string::npos);
  auto gpu = run_cudiag("kb gpu 0x2684 --format json");
  ASSERT_EQ(gpu.exit_code, 0) << gpu.out;
  EXPECT_EQ(Json::parse(gpu.out)[0]["architecture"], "Ada Lovelace");
  auto arch = run_cudiag("kb arch sm_120");
  EXPECT_NE(arch.out.find("Blackwell"), std::string::npos);
  EXPECT_NE(run_cudiag("kb cuda-for-driver 535.104.05").out.find("CUDA 12.2"), std::string::npos);
  EXPECT_NE(run_cudiag("kb ptx --cuda 12.4").out.find("8.4"), std::string::npos);
  EXPECT_NE(run_cudiag("kb ptx 8.8").out.find("CUDA 12.9"), std::string::npos);
  auto tables = run_cudiag("kb tables");
  EXPECT_EQ(tables.exit_code, 0);
  EXPECT_NE(tables.out.find("toolkit_drivers"), std::string::npos);
}

TEST(CmdKbTest, KbDirOverride) {
  auto r = run_cudiag(std::string("--kb ") + CUDIAG_SOURCE_DIR + "/data/kb kb tables");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(std::string(CUDIAG_SOURCE_DIR) + "/data/kb"), std::string::npos);
  auto bad = run_cudiag(std::string("--kb ") + CUDIAG_TEST_DIR + " kb tables");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("no toolkit_drivers.json"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace cudiag
