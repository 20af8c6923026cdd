#include "core/fsroot.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace cudiag {
namespace {

namespace fs = std::filesystem;

class FsRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cudiag_fsroot_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "usr/lib/nvidia");
    fs::create_directories(dir_ / "proc");
    std::ofstream(dir_ / "usr/lib/nvidia/libcuda.so.535.104.05") << "x";
    fs::create_symlink("/usr/lib/nvidia/libcuda.so.535.104.05", dir_ / "usr/lib/libcuda.so.1");
    fs::create_symlink("loop_b", dir_ / "usr/lib/loop_a");
    fs::create_symlink("loop_a", dir_ / "usr/lib/loop_b");
    std::ofstream(dir_ / "proc/version") << "Linux version 6.1.0";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(FsRootTest, AbsoluteSymlinkStaysInsideRoot) {
  FsRoot root(dir_.string());
  auto r = root.resolve("/usr/lib/libcuda.so.1");
  ASSERT_TRUE(r) << r.error;
  EXPECT_EQ(*r.path, "/usr/lib/nvidia/libcuda.so.535.104.05");
}

TEST_F(FsRootTest, SymlinkLoopIsAnErrorNotAHang) {
  FsRoot root(dir_.string());
  auto r = root.resolve("/usr/lib/loop_a");
  EXPECT_FALSE(r);
  EXPECT_NE(r.error.find("too many levels"), std::string::npos);
}

TEST_F(FsRootTest, ReadsThroughRootAndCapsSize) {
  FsRoot root(dir_.string());
  auto ok = root.read_file("/proc/version");
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok.data, "Linux version 6.1.0");
  auto capped = root.read_file("/proc/version", 4);
  EXPECT_FALSE(capped);
  EXPECT_NE(capped.error.find("larger than"), std::string::npos);
  auto missing = root.read_file("/proc/nope");
  EXPECT_FALSE(missing);
  EXPECT_EQ(missing.error, "No such file or directory");
}

TEST(PathTest, Normalize) {
  EXPECT_EQ(normalize_path("/a/b/../c/./d/"), "/a/c/d");
  EXPECT_EQ(normalize_path(""), "/");
  EXPECT_EQ(join_path("/usr/lib", "../lib64/x"), "/usr/lib64/x");
  EXPECT_EQ(dir_name("/usr/lib/x"), "/usr/lib");
  EXPECT_EQ(base_name("/usr/lib/x"), "x");
}

}  // namespace
}  // namespace cudiag
