// Every library in the CUDA toolkit's lib64 must list exactly the entries
// cuobjdump 13.x lists. Slow (cuobjdump reads each file whole: ~20 s for the
// 2.4 GB here), so it is its own binary with ctest label `cuobjdump`.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "cuobjdump_compare.h"
#include "inspect/inspect.h"
#include "inspect/listing.h"

namespace cudiag {
namespace {

namespace fs = std::filesystem;

std::string lib64_dir() {
  if (const char* env = std::getenv("CUDIAG_CUDA_LIB64"); env && *env) return env;
  return "/usr/local/cuda/lib64";
}

TEST(InspectCuobjdumpLib64Test, EveryLibraryListsExactlyWhatCuobjdumpLists) {
  std::string tool = inspect_test::cuobjdump_path();
  if (tool.empty())
    GTEST_SKIP() << "cuobjdump not found (pip install nvidia-cuda-cuobjdump, or set CUDIAG_CUOBJDUMP)";
  std::error_code ec;
  if (!fs::is_directory(lib64_dir(), ec)) GTEST_SKIP() << lib64_dir() << " does not exist";
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(lib64_dir())) {
    // Real files only: the .so symlinks name the same bytes.
    if (e.is_regular_file() && !e.is_symlink()) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::size_t compared = 0, with_code = 0;
  for (const auto& path : files) {
    auto r = inspect::inspect_file(path);
    if (r.type == inspect::FileType::kNotBinary) continue;
    ASSERT_TRUE(r.ok()) << r.error;
    auto run = inspect_test::run_cuobjdump_list(tool, path);
    // cuobjdump 13.5 names archive members under the archive's path as given
    // (/usr/local/cuda/lib64/libcudadevrt.a, not the symlink's target).
    std::string mine = inspect::cuobjdump_listing(r, path, path);
    EXPECT_EQ(mine, run.out) << path;
    // "does not contain device code" exits 255 with nothing listed.
    if (run.exit_code != 0) {
      EXPECT_FALSE(r.has_device_code() && mine.find("file") != std::string::npos) << path << ": " << run.err;
    }
    ++compared;
    if (r.has_device_code()) ++with_code;
  }
  EXPECT_GT(compared, 0u);
  RecordProperty("files_compared", static_cast<int>(compared));
  RecordProperty("files_with_device_code", static_cast<int>(with_code));
}

}  // namespace
}  // namespace cudiag
