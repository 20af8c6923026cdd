#include "core/answer_cache.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/bounded_input.h"
#include "core/build_info.h"
#include "core/errors.h"
#include "core/utc_time.h"

namespace cudiag {

namespace {

constexpr const char* kCacheSchema = "cudiag.answer-cache/1";
constexpr const char* kCacheFile = "library-answers.json";
// A cache that grew past this many entries (libraries replaced over and over)
// starts again rather than growing without end.
constexpr std::size_t kMaxEntries = 4096;
constexpr std::size_t kMaxFileBytes = 8u << 20;

std::string tool_identity() { return fmt::format("{} {}", build_info::kVersion, build_info::kGitCommit); }

}  // namespace

std::string AnswerCache::default_dir() {
  if (const char* d = std::getenv("CUDIAG_CACHE_DIR")) return d;  // set but empty: no cache
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') return std::string(x) + "/cudiag";
  if (const char* h = std::getenv("HOME"); h && *h == '/') return std::string(h) + "/.cache/cudiag";
  return "";
}

AnswerCache::AnswerCache(std::string dir) : dir_(std::move(dir)) {
  if (!dir_.empty()) path_ = dir_ + "/" + kCacheFile;
}

std::optional<std::string> AnswerCache::file_identity(const std::string& host_path) {
  struct stat st {};
  if (::stat(host_path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return fmt::format("{}:{}:{}:{}.{:09}:{}.{:09}", static_cast<unsigned long long>(st.st_dev),
                     static_cast<unsigned long long>(st.st_ino), static_cast<long long>(st.st_size),
                     static_cast<long long>(st.st_mtim.tv_sec), st.st_mtim.tv_nsec,
                     static_cast<long long>(st.st_ctim.tv_sec), st.st_ctim.tv_nsec);
}

std::string AnswerCache::key(const std::string& what, const std::string& host_path) const {
  auto id = file_identity(host_path);
  return id ? fmt::format("{}|{}|{}", what, host_path, *id) : std::string();
}

void AnswerCache::load() {
  if (loaded_) return;
  loaded_ = true;
  // The type and size are checked before a byte is read: a cache path that
  // is a FIFO, or a symlink to /dev/zero, is ignored, never waited on.
  std::string text;
  std::string why;
  if (!read_regular_file(path_, kMaxFileBytes, text, why)) {
    if (!why.empty()) error_ = fmt::format("cache file {}, ignored", why);
    return;  // no cache yet, or not one we can use
  }
  Json doc;
  try {
    doc = parse_untrusted_json(text, path_, 16);
  } catch (const InputError&) {
    return;  // damaged: start afresh
  }
  auto is_string = [&](const char* k) { return doc.contains(k) && doc[k].is_string(); };
  if (!doc.is_object() || !is_string("schema") || doc["schema"] != kCacheSchema || !is_string("tool") ||
      doc["tool"] != tool_identity() || !doc.contains("entries") || !doc["entries"].is_object() ||
      doc["entries"].size() > kMaxEntries) {
    return;  // another cudiag's, or not ours: start afresh
  }
  entries_ = std::move(doc["entries"]);
}

std::optional<Json> AnswerCache::find(const std::string& what, const std::string& host_path) {
  if (!enabled()) return std::nullopt;
  load();
  auto k = key(what, host_path);
  auto it = k.empty() ? entries_.end() : entries_.find(k);
  if (it == entries_.end() || !it->is_object() || !it->contains("answer") || !(*it)["answer"].is_object()) {
    ++misses_;
    return std::nullopt;
  }
  // A well-formed entry of the wrong shape is a miss, not an error.
  if (it->contains("at") && !(*it)["at"].is_string()) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  Json answer = (*it)["answer"];
  answer["answered_at"] = it->value("at", "");
  return answer;
}

void AnswerCache::remember(const std::string& what, const std::string& host_path, const Json& answer) {
  if (!enabled()) return;
  load();
  auto k = key(what, host_path);
  if (k.empty()) return;
  Json entry = Json::object();
  entry["at"] = utc_now();
  entry["answer"] = answer;
  entries_[k] = std::move(entry);
  dirty_ = true;
}

void AnswerCache::save() {
  if (!enabled() || !dirty_) return;
  Json doc = Json::object();
  doc["schema"] = kCacheSchema;
  doc["tool"] = tool_identity();
  doc["entries"] = entries_;
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    error_ = fmt::format("{}: {}", dir_, ec.message());
    return;
  }
  try {
    write_file_atomically(path_, doc.dump());
    dirty_ = false;
  } catch (const std::exception& e) {
    error_ = e.what();
  }
}

Json AnswerCache::status() const {
  Json s = Json::object();
  s["path"] = enabled() ? Json(path_) : Json(nullptr);
  s["hits"] = hits_;
  s["misses"] = misses_;
  if (!error_.empty()) s["error"] = error_;
  return s;
}

}  // namespace cudiag
