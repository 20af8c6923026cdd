// Python wheels: a real zip written here with libzip around an nvcc-built
// shared library (deflated, as wheels store them), read by the inspector in
// memory. Nothing may be extracted next to the wheel or into the temp dir.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zip.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <list>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../run_cudiag.h"
#include "inspect/scan.h"
#include "inspect_test_util.h"

namespace cudiag::inspect {
namespace {

namespace fs = std::filesystem;
using inspect_test::arches;
using S = std::set<std::string>;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class InspectWheelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() / fs::path("cudiag-wheel-" + std::to_string(::getpid()) + "-" +
                                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes a wheel holding `members` (name -> bytes), each deflated.
  std::string write_wheel(const std::string& name,
                          const std::vector<std::pair<std::string, std::string>>& members) {
    std::string path = (dir_ / name).string();
    int err = 0;
    zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    EXPECT_NE(z, nullptr) << "zip_open error " << err;
    if (!z) return path;
    for (const auto& [member, bytes] : members) {
      // libzip copies nothing until zip_close, so the bytes must outlive it.
      kept_.push_back(bytes);
      zip_source_t* src = zip_source_buffer(z, kept_.back().data(), kept_.back().size(), 0);
      zip_int64_t index = zip_file_add(z, member.c_str(), src, ZIP_FL_ENC_UTF_8);
      EXPECT_GE(index, 0) << zip_strerror(z);
      zip_set_file_compression(z, static_cast<zip_uint64_t>(index), ZIP_CM_DEFLATE, 9);
    }
    EXPECT_EQ(zip_close(z), 0);
    return path;
  }

  std::size_t files_in_dir() const {
    std::size_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) n += e.is_regular_file();
    return n;
  }

  fs::path dir_;
  std::list<std::string> kept_;
};

TEST_F(InspectWheelTest, ReadsDeflatedExtensionModulesInMemory) {
  CUDIAG_REQUIRE_KERNEL(so, "libvariants.so");
  std::string wheel = write_wheel("pkg-1.0-cp311-cp311-linux_x86_64.whl",
                                  {{"pkg/__init__.py", "from ._ext import *\n"},
                                   {"pkg/_ext.cpython-311-x86_64-linux-gnu.so", slurp(so)},
                                   {"pkg-1.0.dist-info/METADATA", "Name: pkg\nVersion: 1.0\n"}});
  ASSERT_EQ(files_in_dir(), 1u);
  auto results = inspect_paths({wheel}, {});
  ASSERT_EQ(results.size(), 1u) << "only the binary member is listed";
  const auto& r = results[0];
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.path, wheel + "!/pkg/_ext.cpython-311-x86_64-linux-gnu.so");
  EXPECT_EQ(r.elf_type, 3);
  EXPECT_EQ(arches(r, EntryKind::kSass), (S{"sm_90a", "sm_100f"}));
  EXPECT_EQ(arches(r, EntryKind::kPtx), (S{"compute_100a", "compute_100f"}));
  EXPECT_EQ(r.file_size, fs::file_size(so));
  EXPECT_EQ(files_in_dir(), 1u) << "nothing was extracted";
}

TEST_F(InspectWheelTest, AWheelInADirectoryIsOpenedAndTextMembersAreSkipped) {
  CUDIAG_REQUIRE_KERNEL(fatbin, "k.fatbin");
  write_wheel("a-1.0-py3-none-any.whl",
              {{"a/kernels.fatbin", slurp(fatbin)}, {"a/README", std::string(64, 'r')}});
  auto results = inspect_paths({dir_.string()}, {});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].path.ends_with(".whl!/a/kernels.fatbin")) << results[0].path;
  EXPECT_EQ(results[0].type, FileType::kFatbin);
}

TEST_F(InspectWheelTest, ATruncatedMemberIsAnErrorNamingTheMember) {
  CUDIAG_REQUIRE_KERNEL(fatbin, "k.fatbin");
  std::string bytes = slurp(fatbin);
  std::string wheel =
      write_wheel("cut-1.0-py3-none-any.whl", {{"cut/k.fatbin", bytes.substr(0, bytes.size() / 2)}});
  auto results = inspect_paths({wheel}, {});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].error.starts_with(wheel + "!/cut/k.fatbin: truncated")) << results[0].error;
  EXPECT_NE(results[0].error.find(" at offset 0x"), std::string::npos) << results[0].error;
}

TEST_F(InspectWheelTest, NotAZipIsAnErrorNamingTheWheel) {
  std::string path = (dir_ / "broken-1.0-py3-none-any.whl").string();
  std::ofstream(path) << "this is not a zip archive at all";
  auto results = inspect_paths({path}, {});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].error.starts_with(path + ": cannot read wheel: ")) << results[0].error;
}

// The cudiag binary does not link libzip (it is dlopen'ed when a wheel is
// read, src/inspect/zip_api.h); this test process does, so only running the
// binary itself shows that the lazy load works.
TEST_F(InspectWheelTest, TheCudiagBinaryReadsAWheelThroughItsLazilyLoadedLibzip) {
  CUDIAG_REQUIRE_KERNEL(so, "libvariants.so");
  std::string wheel = write_wheel("pkg-1.0-cp311-cp311-linux_x86_64.whl",
                                  {{"pkg/_ext.cpython-311-x86_64-linux-gnu.so", slurp(so)}});
  auto r = test_run::run_cudiag_merged("inspect --format json " + wheel);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string& out = r.out;
  EXPECT_NE(out.find("pkg/_ext.cpython-311-x86_64-linux-gnu.so"), std::string::npos) << out;
  EXPECT_NE(out.find("sm_90a"), std::string::npos) << out;
  EXPECT_EQ(out.find("cannot read wheel"), std::string::npos) << out;
}

}  // namespace
}  // namespace cudiag::inspect
