#pragma once
// Helpers for the workflow tests: run the built cudiag, a scratch directory,
// and the fixture report of a GPU node (driver 550.54.15, CUDA 12.4, H100s, torch 2.4.1+cu124).
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/json.h"

namespace cudiag::workflow::testing {

struct Run {
  int rc = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

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

// Runs `cudiag ARGS`; stdout and stderr are captured separately.
inline Run run_cudiag(const std::string& args, const ScratchDir& scratch) {
  Run r;
  std::string err_file = scratch.path("stderr.txt");
  std::string cmd = std::string(CUDIAG_BINARY) + " " + args + " 2>" + err_file;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_text(err_file);
  return r;
}

inline std::string fixture_report_path() {
  return std::string(CUDIAG_TEST_DIR) + "/unit/workflow/node-550.report.json";
}
inline Json fixture_report() { return Json::parse(read_text(fixture_report_path())); }

}  // namespace cudiag::workflow::testing
