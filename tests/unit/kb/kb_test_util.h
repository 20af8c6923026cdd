#pragma once
// Helpers shared by the knowledge-base tests: a scratch copy of data/kb/ that a
// test can break one file of, and the raw embedded tables.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/errors.h"
#include "core/json.h"
#include "kb/knowledge_base.h"

namespace cudiag::kb::testing {

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh copy of the source tree's data/kb in a temporary directory, removed on destruction.
class KbCopy {
 public:
  explicit KbCopy(const std::string& name) {
    dir_ = std::filesystem::temp_directory_path() / ("cudiag-kb-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    for (const auto& e :
         std::filesystem::directory_iterator(std::filesystem::path(CUDIAG_SOURCE_DIR) / "data" / "kb"))
      std::filesystem::copy_file(e.path(), dir_ / e.path().filename());
  }
  ~KbCopy() { std::filesystem::remove_all(dir_); }
  KbCopy(const KbCopy&) = delete;
  KbCopy& operator=(const KbCopy&) = delete;

  std::string dir() const { return dir_.string(); }
  std::filesystem::path file(const std::string& table) const { return dir_ / (table + ".json"); }
  Json read(const std::string& table) const { return Json::parse(read_text(file(table))); }
  void write(const std::string& table, const std::string& text) const {
    std::ofstream(file(table), std::ios::binary) << text;
  }
  void write(const std::string& table, const Json& doc) const { write(table, doc.dump(2)); }

 private:
  std::filesystem::path dir_;
};

// Loads the copy as --kb does and returns the InputError's message ("" when it loaded).
inline std::string load_error(const KbCopy& copy) {
  try {
    KnowledgeBase::load_dir(copy.dir());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace cudiag::kb::testing
