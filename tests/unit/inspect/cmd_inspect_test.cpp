// `cudiag inspect` end to end: runs the built binary on nvcc-built kernels and
// on broken inputs, and checks what a user sees and the exit status.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "../run_cudiag.h"
#include "core/json.h"
#include "inspect_test_util.h"

namespace cudiag {
namespace {

namespace fs = std::filesystem;
using test_run::run_cudiag;

std::size_t lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

class CmdInspectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cudiag-cmd-inspect-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CmdInspectTest, SummaryLineAndNativeVerdict) {
  CUDIAG_REQUIRE_KERNEL(both, "both");
  auto r = run_cudiag("inspect --gpu sm_90 --gpu 7.5 " + both);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find(both + ": SASS sm_75 sm_90 · PTX compute_90 (ISA 9.0) · "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  sm_90: runs natively (sm_90)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  sm_75: runs natively (sm_75)"), std::string::npos) << r.out;
}

TEST_F(CmdInspectTest, AGpuWithoutSassOrUsablePtxCannotRunAndExits1) {
  CUDIAG_REQUIRE_KERNEL(sass, "sass_only");
  auto r = run_cudiag("inspect --gpu sm_120 " + sass);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("  sm_120: cannot run: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no SASS for sm_120 (only sm_75 sm_86)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no kernel image is available"), std::string::npos) << r.out;
}

TEST_F(CmdInspectTest, PtxJitDependsOnTheDriversPtxIsa) {
  CUDIAG_REQUIRE_KERNEL(ptx, "ptx_only");
  // PTX ISA 9.0 (CUDA 13.0) JIT-compiles for a newer GPU with a new enough driver...
  auto jit = run_cudiag("inspect --gpu sm_120 --driver 580.65.06 " + ptx);
  EXPECT_EQ(jit.exit_code, 0) << jit.out << jit.err;
  EXPECT_NE(jit.out.find("  sm_120: runs through PTX JIT: "), std::string::npos) << jit.out;
  EXPECT_NE(jit.out.find("compute_90 (PTX ISA 9.0)"), std::string::npos) << jit.out;
  EXPECT_NE(jit.out.find("driver 580.65.06: CUDA 13.0, JIT accepts PTX ISA up to 9.0"), std::string::npos)
      << jit.out;
  // ...but not with R535 (CUDA 12.2, PTX ISA 8.2).
  auto old = run_cudiag("inspect --gpu sm_90 --driver 535.104.05 " + ptx);
  EXPECT_EQ(old.exit_code, 1) << old.out << old.err;
  EXPECT_NE(old.out.find("  sm_90: cannot run: "), std::string::npos) << old.out;
  EXPECT_NE(old.out.find("needs PTX ISA 9.0 but the driver supports only up to 8.2"), std::string::npos)
      << old.out;
}

TEST_F(CmdInspectTest, JsonListsEveryEntryAndTheVerdicts) {
  CUDIAG_REQUIRE_KERNEL(lib, "libvariants.so");
  auto r = run_cudiag("inspect --format json --gpu sm_100 --driver 550.54.15 " + lib);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  Json j = Json::parse(r.out);
  EXPECT_EQ(j["driver"]["max_ptx_isa"], "8.4");
  ASSERT_EQ(j["files"].size(), 1u);
  const Json& f = j["files"][0];
  EXPECT_EQ(f["path"], lib);
  EXPECT_EQ(f["type"], "shared library");
  EXPECT_TRUE(f["needed"].is_array());
  std::set<std::string> archs;
  for (const auto& e : f["entries"]) {
    archs.insert(e["arch"].get<std::string>());
    EXPECT_TRUE(e.contains("compression"));
    EXPECT_TRUE(e.contains("uncompressed_size"));
  }
  EXPECT_EQ(archs, (std::set<std::string>{"sm_90a", "sm_100f", "compute_100a", "compute_100f"}));
  ASSERT_EQ(f["verdicts"].size(), 1u);
  EXPECT_EQ(f["verdicts"][0]["gpu"], "sm_100");
  EXPECT_EQ(f["verdicts"][0]["verdict"], "native");
  EXPECT_EQ(f["verdicts"][0]["image"], "sm_100f");
}

TEST_F(CmdInspectTest, DirectoriesAreSearchedAndOnlyBinariesListed) {
  CUDIAG_REQUIRE_KERNEL(fatbin, "k.fatbin");
  CUDIAG_REQUIRE_KERNEL(cubin, "k_sm120.cubin");
  fs::create_directories(dir_ / "sub" / "deeper");
  fs::copy_file(fatbin, dir_ / "sub" / "k.fatbin");
  fs::copy_file(cubin, dir_ / "sub" / "deeper" / "k.cubin");
  std::ofstream(dir_ / "notes.txt") << "not a binary, skipped quietly in a directory\n";
  auto r = run_cudiag("inspect " + dir_.string());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(lines(r.out), 2u) << r.out;
  EXPECT_NE(
      r.out.find((dir_ / "sub" / "deeper" / "k.cubin").string() + ": SASS sm_120 · 1 entry, uncompressed"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find((dir_ / "sub" / "k.fatbin").string() + ": SASS sm_75 · PTX compute_75"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("notes.txt"), std::string::npos) << r.out;
}

TEST_F(CmdInspectTest, TruncatedFileIsOneLineNamingFileAndOffsetAndExits2) {
  CUDIAG_REQUIRE_KERNEL(both, "both");
  std::ifstream in(both, std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  // Cut inside the .nv_fatbin section of the executable.
  auto whole = run_cudiag("inspect --format json " + both);
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  std::uint64_t blob = Json::parse(whole.out)["files"][0]["modules"][1]["offset"].get<std::uint64_t>();
  std::string cut = (dir_ / "cut").string();
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, blob + 40);
  auto r = run_cudiag("inspect " + cut);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_TRUE(r.err.starts_with("cudiag: error: " + cut + ": ")) << r.err;
  EXPECT_NE(r.err.find(" at offset 0x"), std::string::npos) << r.err;
}

TEST_F(CmdInspectTest, MissingFileAndNotABinaryExit2WithOneLine) {
  std::string missing = (dir_ / "no-such-file.so").string();
  auto r = run_cudiag("inspect " + missing);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "cudiag: error: " + missing + ": No such file or directory\n");

  std::string text = (dir_ / "readme.txt").string();
  std::ofstream(text) << "plain text\n";
  auto t = run_cudiag("inspect " + text);
  EXPECT_EQ(t.exit_code, 2) << t.out;
  EXPECT_EQ(t.err, "cudiag: error: " + text + ": not an ELF file, ar archive or fatbin\n");
}

TEST_F(CmdInspectTest, BadGpuAndDriverArgumentsExit2) {
  CUDIAG_REQUIRE_KERNEL(both, "both");
  auto g = run_cudiag("inspect --gpu sm_9x " + both);
  EXPECT_EQ(g.exit_code, 2);
  EXPECT_EQ(lines(g.err), 1u) << g.err;
  EXPECT_NE(g.err.find("--gpu sm_9x"), std::string::npos) << g.err;
  auto d = run_cudiag("inspect --driver banana " + both);
  EXPECT_EQ(d.exit_code, 2);
  EXPECT_NE(d.err.find("--driver banana"), std::string::npos) << d.err;
}

}  // namespace
}  // namespace cudiag
