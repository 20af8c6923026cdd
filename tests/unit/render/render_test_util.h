#pragma once
// Shared by the renderer tests: fixture reports (tests/fixtures/reports/),
// temporary files, and running python3 checks on rendered output.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "../collect/machine_builder.h"
#include "core/json.h"

namespace cudiag::render_test {

namespace fs = std::filesystem;

inline Json fixture_report(const std::string& name) {
  auto path = fs::path(CUDIAG_TEST_DIR) / "fixtures" / "reports" / name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("no fixture report " + path.string());
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

// tests/unit/render/secrets_corpus.json: the secrets every format must redact.
inline Json secrets_corpus() {
  std::ifstream in(std::string(CUDIAG_TEST_DIR) + "/unit/render/secrets_corpus.json");
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

// A file in a fresh temporary directory, removed with the object.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& content) {
    static int counter = 0;
    dir_ = fs::temp_directory_path() /
           ("cudiag_render_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(dir_);
    path_ = dir_ / name;
    std::ofstream(path_, std::ios::binary) << content;
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path() const { return path_.string(); }
  std::string dir() const { return dir_.string(); }

 private:
  fs::path dir_;
  fs::path path_;
};

// Runs `python3 -c SCRIPT ARGS...`; its stdout, exit code in `exit_code`.
inline machine_test::RunResult python(const std::string& script, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/usr/bin/python3", "-c", script};
  argv.insert(argv.end(), args.begin(), args.end());
  return machine_test::run_program(argv, 120);
}

}  // namespace cudiag::render_test
