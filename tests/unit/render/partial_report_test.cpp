// `cudiag analyze` renders reports people hand it: partial ones, or ones whose
// fields have other types. The text header must not trust the report's shape
// (a missing "tool" once read a member of a const null: exit 3).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../run_cudiag.h"

namespace cudiag {
namespace {

namespace fs = std::filesystem;

class PartialReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cudiag-partial-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    auto path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  fs::path dir_;
};

TEST_F(PartialReportTest, AReportWithoutToolOrTimesIsRenderedNotAnInternalError) {
  for (const char* text :
       {R"({"schema": "cudiag.report/1", "host": {}})",
        R"({"schema": "cudiag.report/1", "tool": "cudiag 0.1", "collected_at": 5, "root": 7})"}) {
    auto path = write("r.json", text);
    auto r = test_run::run_cudiag("--no-color analyze " + path);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << text << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("cudiag ? — NVIDIA GPU stack"), std::string::npos) << r.out << r.err;
  }
}

}  // namespace
}  // namespace cudiag
