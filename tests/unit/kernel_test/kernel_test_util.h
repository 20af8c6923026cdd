#pragma once
// Runs `cudiag test` against the real libraries of this machine or the test
// doubles (tests/doubles/fake_libcuda.c, fake_libnvrtc.c), each double driven
// by a scenario file written per test.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../collect/machine_builder.h"
#include "core/json.h"

namespace cudiag::kernel_test_test {

namespace fs = std::filesystem;
using machine_test::RunResult;

inline std::string fake_libcuda() { return std::string(CUDIAG_DOUBLES_DIR) + "/fake_libcuda.so"; }
inline std::string fake_libnvrtc() { return std::string(CUDIAG_DOUBLES_DIR) + "/fake_libnvrtc.so"; }

// A scratch directory with the scenario (read by every double through
// $CUDIAG_DOUBLE_SCENARIO) and the record fake_libcuda appends to.
class Scratch {
 public:
  explicit Scratch(const std::string& scenario) {
    dir_ = fs::temp_directory_path() /
           ("cudiag-kt-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "scenario") << scenario;
    ::setenv("CUDIAG_DOUBLE_SCENARIO", (dir_ / "scenario").c_str(), 1);
    ::setenv("CUDIAG_DOUBLE_RECORD", (dir_ / "record").c_str(), 1);
  }
  ~Scratch() {
    ::unsetenv("CUDIAG_DOUBLE_SCENARIO");
    ::unsetenv("CUDIAG_DOUBLE_RECORD");
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  const fs::path& dir() const { return dir_; }
  std::string record() const {
    std::ifstream f(dir_ / "record");
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  fs::path dir_;
};

inline RunResult run_test(std::vector<std::string> args, int timeout_s = 10) {
  std::vector<std::string> argv = {CUDIAG_BINARY, "--no-color", "--timeout", std::to_string(timeout_s),
                                   "test"};
  for (auto& a : args) argv.push_back(std::move(a));
  return machine_test::run_program(argv, timeout_s * 4.0 + 60);
}

inline Json parse_section(const RunResult& r) {
  Json j = Json::parse(r.out, nullptr, false);
  if (j.is_discarded() || !j.contains("kernel_test")) return Json::object();
  return j["kernel_test"];
}

// The step named `name` in a step list, or null.
inline Json step(const Json& steps, const std::string& name) {
  for (const auto& s : steps) {
    if (s.value("name", "") == name) return s;
  }
  return nullptr;
}

}  // namespace cudiag::kernel_test_test
