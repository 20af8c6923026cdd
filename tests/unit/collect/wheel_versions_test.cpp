// Library versions read from the NVIDIA wheel that installed the file
// (machine/wheel_record.h): the RECORD reader on small trees, and end to end on
// this machine's real CUDA 13 libraries, where every version read from a wheel
// must equal what the library's own function answers (--confirm-versions).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "machine/wheel_record.h"
#include "machine_builder.h"

namespace cudiag::machine_test {
namespace {

class WheelRecordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cudiag-wheel-record-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A file of `size` bytes at `rel` under the tree.
  void file(const std::string& rel, std::size_t size) {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel) << std::string(size, 'x');
  }
  void record(const std::string& dist_info_dir, const std::string& text) {
    fs::create_directories(dir_ / dist_info_dir);
    std::ofstream(dir_ / dist_info_dir / "RECORD") << text;
  }
  std::optional<machine::WheelOwner> owner(const std::string& rel) {
    FsRoot root(dir_.string());
    return machine::WheelRecordIndex(root).owner_of("/" + rel);
  }

  fs::path dir_;
};

TEST_F(WheelRecordTest, AWheelsOwnLayoutMatchesByPathAndSize) {
  file("sp/nvidia/cublas/lib/libcublas.so.12", 10);
  record("sp/nvidia_cublas_cu12-12.8.4.1.dist-info",
         "nvidia/cublas/__init__.py,,\nnvidia/cublas/lib/libcublas.so.12,sha256=abc,10\n"
         "nvidia_cublas_cu12-12.8.4.1.dist-info/RECORD,,\n");
  auto o = owner("sp/nvidia/cublas/lib/libcublas.so.12");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->distribution, "nvidia_cublas_cu12");
  EXPECT_EQ(o->version, "12.8.4.1");
  EXPECT_EQ(o->matched_by, "path and size");
  EXPECT_EQ(o->record_path, "/sp/nvidia_cublas_cu12-12.8.4.1.dist-info/RECORD");
}

TEST_F(WheelRecordTest, FilesCopiedOutOfTheWheelMatchByNameAndSize) {
  // A toolkit assembled from wheels: lib64/ beside a dist-info/ folder.
  file("cuda/lib64/libcufft.so.12", 7);
  record("cuda/dist-info/nvidia_cufft-12.0.0.61.dist-info", "nvidia/cu13/lib/libcufft.so.12,sha256=x,7\r\n");
  auto o = owner("cuda/lib64/libcufft.so.12");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->version, "12.0.0.61");
  EXPECT_EQ(o->matched_by, "name and size");
}

TEST_F(WheelRecordTest, ADifferentSizeIsNotTheWheelsFile) {
  file("sp/nvidia/cublas/lib/libcublas.so.12", 11);
  record("sp/nvidia_cublas_cu12-12.8.4.1.dist-info", "nvidia/cublas/lib/libcublas.so.12,sha256=abc,10\n");
  EXPECT_FALSE(owner("sp/nvidia/cublas/lib/libcublas.so.12"));
}

TEST_F(WheelRecordTest, TwoWheelsClaimingTheFileWithDifferentVersionsSayNothing) {
  file("cuda/lib64/libnccl.so.2", 5);
  record("cuda/dist-info/nvidia_nccl_cu12-2.21.5.dist-info", "nvidia/nccl/lib/libnccl.so.2,,5\n");
  record("cuda/dist-info/nvidia_nccl_cu13-2.28.9.dist-info", "nvidia/nccl/lib/libnccl.so.2,,5\n");
  EXPECT_FALSE(owner("cuda/lib64/libnccl.so.2"));
}

TEST_F(WheelRecordTest, OnlyNvidiaDistributionsAreRead) {
  file("sp/torch/lib/libcublas.so.12", 3);
  record("sp/torch-2.8.0.dist-info", "torch/lib/libcublas.so.12,,3\n");
  EXPECT_FALSE(owner("sp/torch/lib/libcublas.so.12"));
}

TEST_F(WheelRecordTest, AQuotedPathAndAGarbledRecordAreHandled) {
  file("sp/nvidia/x,y/lib/libcurand.so.10", 4);
  record("sp/nvidia_curand-10.4.0.35.dist-info",
         "garbage without commas\n,,\nnvidia/x/lib/libcurand.so.10,,notanumber\n"
         "\"nvidia/x,y/lib/libcurand.so.10\",sha256=z,4\n");
  auto o = owner("sp/nvidia/x,y/lib/libcurand.so.10");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->matched_by, "path and size");
}

TEST_F(WheelRecordTest, MoreThanThreeLevelsAboveIsNotSearched) {
  file("a/b/c/d/e/libcusparse.so.12", 2);
  record("a/nvidia_cusparse-12.6.3.3.dist-info", "a/b/c/d/e/libcusparse.so.12,,2\n");
  EXPECT_FALSE(owner("a/b/c/d/e/libcusparse.so.12"));
}

TEST(LeadingComponents, CutsAVersionToTheFunctionsPrecision) {
  EXPECT_EQ(machine::leading_components("13.1.0.3", 3), "13.1.0");
  EXPECT_EQ(machine::leading_components("13.0.88", 2), "13.0");
  EXPECT_EQ(machine::leading_components("2.28.9", 3), "2.28.9");
  EXPECT_EQ(machine::leading_components("9.1", 3), "");
  EXPECT_EQ(machine::leading_components("9.1.0rc1", 3), "9.1.0");
  EXPECT_EQ(machine::leading_components("v9.1.0", 3), "");
}

// Every version this machine's report takes from a wheel equals the library's
// own answer, and the first report asks only what no wheel answers.
TEST(WheelVersionsEndToEnd, EveryWheelVersionEqualsTheLibrarysOwnAnswer) {
  if (!fs::exists("/usr/local/cuda/dist-info") || !fs::exists("/usr/local/cuda/lib64/libcublas.so.13"))
    GTEST_SKIP() << "no wheel-assembled CUDA toolkit in /usr/local/cuda on this machine";
  auto from_wheels = run_report("/", 60, {"--no-cache", "--no-frameworks"});
  auto confirmed = run_report("/", 60, {"--no-cache", "--no-frameworks", "--confirm-versions"});
  ASSERT_TRUE(from_wheels.json_ok() && confirmed.json_ok()) << describe(from_wheels) << describe(confirmed);

  std::set<std::string> read_from_wheel;
  for (const auto& [key, lib] : at(from_wheels.report, "libraries").items()) {
    const auto& asked = at(confirmed.report, "libraries." + key + ".instances");
    ASSERT_EQ(lib["instances"].size(), asked.size()) << key;
    for (std::size_t i = 0; i < asked.size(); ++i) {
      const auto& v = lib["instances"][i]["version"];
      if (!v.contains("via")) continue;
      read_from_wheel.insert(key);
      EXPECT_EQ(v["value"], asked[i]["version"]["value"])
          << key << " " << lib["instances"][i]["real_path"] << ": " << v.dump() << " vs "
          << asked[i]["version"].dump();
      EXPECT_EQ(asked[i]["version"]["source"].get<std::string>().rfind("call:", 0), 0u) << asked[i].dump();
      EXPECT_NE(v["source"].get<std::string>().find(".dist-info/RECORD"), std::string::npos) << v.dump();
    }
  }
  // The CUDA 13.0 toolkit here was assembled from these wheels.
  for (const char* key : {"cudnn", "cublas", "cublaslt", "nccl", "nvrtc", "nvjitlink", "cufft", "cusparse",
                          "cusolver", "curand"})
    EXPECT_TRUE(read_from_wheel.count(key)) << key << " was not read from its wheel";
  // CUPTI's function reports an API number no wheel version says: it is still asked.
  bool cupti_asked = false;
  for (const auto& c : at(from_wheels.report, "timings.children"))
    if (c.value("child", "").rfind("library cupti", 0) == 0) cupti_asked = true;
  EXPECT_TRUE(cupti_asked) << at(from_wheels.report, "timings.children").dump(1);
  EXPECT_FALSE(read_from_wheel.count("cupti"));
}

}  // namespace
}  // namespace cudiag::machine_test
