#pragma once
// Helpers for the workflow tests: run the built cudiag (../run_cudiag.h), a scratch directory,
// and the fixture report of a GPU node (driver 550.54.15, CUDA 12.4, H100s, torch 2.4.1+cu124).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../run_cudiag.h"
#include "core/json.h"

namespace cudiag::workflow::testing {

using test_run::run_cudiag;
using test_run::RunResult;

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name) {
    dir_ = std::filesystem::temp_directory_path() / ("cudiag-wf-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~ScratchDir() { std::filesystem::remove_all(dir_); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string path(const std::string& file) const { return (dir_ / file).string(); }

 private:
  std::filesystem::path dir_;
};

inline std::string fixture_report_path() {
  return std::string(CUDIAG_TEST_DIR) + "/unit/workflow/node-550.report.json";
}
inline Json fixture_report() { return Json::parse(read_text(fixture_report_path())); }

}  // namespace cudiag::workflow::testing
