// The cache of library-version answers (core/answer_cache.h): an answer is
// reused only for the same, unchanged file, a damaged cache is just empty,
// and end to end a second report asks no library again while giving the same
// versions.
#include "core/answer_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "machine_builder.h"

namespace cudiag::machine_test {
namespace {

class AnswerCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cudiag-answer-cache-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "lib");
    lib_ = (dir_ / "lib" / "libcufoo.so.1").string();
    std::ofstream(lib_) << "not really a library";
  }
  void TearDown() override { fs::remove_all(dir_); }

  Json answer(int v) {
    Json a = Json::object();
    a["calls"] = Json::object();
    a["calls"]["cufooGetVersion"] = v;
    return a;
  }

  fs::path dir_;
  std::string lib_;
};

TEST_F(AnswerCacheTest, AnAnswerIsReusedForTheSameFileAcrossRuns) {
  std::string cache_dir = (dir_ / "cache").string();
  {
    AnswerCache cache(cache_dir);
    EXPECT_FALSE(cache.find("library cufoo", lib_));
    cache.remember("library cufoo", lib_, answer(1234));
    cache.save();
    EXPECT_EQ(cache.status()["misses"], 1);
  }
  AnswerCache again(cache_dir);
  auto found = again.find("library cufoo", lib_);
  ASSERT_TRUE(found);
  EXPECT_EQ((*found)["calls"]["cufooGetVersion"], 1234);
  EXPECT_TRUE((*found)["answered_at"].is_string());
  EXPECT_EQ(again.status()["hits"], 1);
  // Another question about the same file is not this answer.
  EXPECT_FALSE(again.find("library cubar", lib_));
}

TEST_F(AnswerCacheTest, AChangedOrReplacedFileIsAskedAgain) {
  std::string cache_dir = (dir_ / "cache").string();
  AnswerCache cache(cache_dir);
  cache.remember("library cufoo", lib_, answer(1));
  cache.save();
  std::ofstream(lib_, std::ios::app) << "a newer build";
  EXPECT_FALSE(AnswerCache(cache_dir).find("library cufoo", lib_));

  AnswerCache second(cache_dir);
  second.remember("library cufoo", lib_, answer(2));
  second.save();
  // Same name, same size, new file (a package upgrade renames a new file over it).
  std::string tmp = lib_ + ".new";
  fs::copy_file(lib_, tmp);
  fs::rename(tmp, lib_);
  EXPECT_FALSE(AnswerCache(cache_dir).find("library cufoo", lib_));
}

TEST_F(AnswerCacheTest, AMalformedCacheFileIsEmptyAndRewritten) {
  std::string cache_dir = (dir_ / "cache").string();
  fs::create_directories(cache_dir);
  for (const char* garbage : {"{\"schema\": \"cudiag.answer-cache/1\", \"entries\": [1,2",
                              "\x7f"
                              "ELF\x02\x01",
                              "{\"schema\": \"cudiag.answer-cache/1\", \"tool\": \"x\", \"entries\": {}}",
                              "{\"schema\": \"cudiag.answer-cache/1\", \"entries\": {\"k\": 7}}"}) {
    std::ofstream(cache_dir + "/library-answers.json", std::ios::trunc) << garbage;
    AnswerCache cache(cache_dir);
    EXPECT_FALSE(cache.find("library cufoo", lib_)) << garbage;
    cache.remember("library cufoo", lib_, answer(5));
    cache.save();
    EXPECT_FALSE(cache.status().contains("error")) << cache.status().dump();
    auto reread = AnswerCache(cache_dir).find("library cufoo", lib_);
    ASSERT_TRUE(reread) << garbage;
    EXPECT_EQ((*reread)["calls"]["cufooGetVersion"], 5);
  }
}

TEST_F(AnswerCacheTest, AnUnwritableCacheIsAStatusNotAFailure) {
  // A directory that cannot exist: its parent is a regular file.
  AnswerCache cache(lib_ + "/cache");
  cache.remember("library cufoo", lib_, answer(1));
  EXPECT_NO_THROW(cache.save());
  EXPECT_TRUE(cache.status().contains("error")) << cache.status().dump();
}

TEST_F(AnswerCacheTest, NoDirectoryRemembersNothing) {
  AnswerCache cache("");
  cache.remember("library cufoo", lib_, answer(1));
  cache.save();
  EXPECT_FALSE(cache.find("library cufoo", lib_));
  EXPECT_TRUE(cache.status()["path"].is_null());
}

std::vector<std::string> library_children(const Json& report) {
  std::vector<std::string> out;
  for (const auto& c : at(report, "timings.children")) {
    auto label = c.value("child", "");
    if (label.rfind("library ", 0) == 0) out.push_back(label);
  }
  return out;
}

TEST(AnswerCacheEndToEnd, ASecondReportAsksNoLibraryAndGivesTheSameVersions) {
  if (!fs::exists("/usr/local/cuda/lib64/libcublas.so.13") &&
      !fs::exists("/usr/local/cuda/lib64/libcudnn.so.9")) {
    GTEST_SKIP() << "no CUDA libraries in /usr/local/cuda/lib64 on this machine";
  }
  auto cache_dir = fs::temp_directory_path() / ("cudiag-answer-cache-e2e-" + std::to_string(::getpid()));
  fs::remove_all(cache_dir);
  ::setenv("CUDIAG_CACHE_DIR", cache_dir.c_str(), 1);

  // --confirm-versions: every library is asked, even those whose NVIDIA wheel
  // says the version; a remembered answer then wins over the wheel's.
  auto first = run_report("/", 60, {"--confirm-versions"});
  ASSERT_TRUE(first.json_ok()) << describe(first);
  auto asked = library_children(first.report);
  ASSERT_FALSE(asked.empty()) << at(first.report, "timings").dump(1);
  EXPECT_TRUE(fs::exists(cache_dir / "library-answers.json"));

  auto second = run_report("/", 60);
  ASSERT_TRUE(second.json_ok()) << describe(second);
  EXPECT_TRUE(library_children(second.report).empty()) << at(second.report, "timings.children").dump(1);
  EXPECT_EQ(at(second.report, "timings.answer_cache.hits"), asked.size());
  for (const auto& [key, lib] : at(first.report, "libraries").items()) {
    const auto& before = lib["instances"];
    const auto& after = at(second.report, "libraries." + key + ".instances");
    ASSERT_EQ(before.size(), after.size()) << key;
    for (std::size_t i = 0; i < before.size(); ++i) {
      EXPECT_EQ(before[i]["version"]["value"], after[i]["version"]["value"]) << key;
      EXPECT_EQ(before[i]["version"]["source"], after[i]["version"]["source"]) << key;
      if (before[i]["version"]["source"].get<std::string>().rfind("call:", 0) == 0) {
        EXPECT_TRUE(after[i]["version"].contains("answered_at")) << after[i].dump();
      }
    }
  }

  // --binaries: what the fatbin headers list is remembered too, and equal to a fresh read.
  auto scanned = run_report("/", 60, {"--binaries"});
  auto remembered = run_report("/", 60, {"--binaries"});
  auto fresh_scan = run_report("/", 60, {"--binaries", "--no-cache"});
  ASSERT_TRUE(scanned.json_ok() && remembered.json_ok() && fresh_scan.json_ok()) << describe(remembered);
  EXPECT_GT(at(remembered.report, "timings.answer_cache.hits").get<int>(),
            at(scanned.report, "timings.answer_cache.hits").get<int>());
  EXPECT_EQ(at(remembered.report, "binaries"), at(fresh_scan.report, "binaries"));

  // --no-cache asks every library again.
  auto fresh = run_report("/", 60, {"--no-cache", "--confirm-versions"});
  ASSERT_TRUE(fresh.json_ok()) << describe(fresh);
  EXPECT_EQ(library_children(fresh.report).size(), asked.size());
  fs::remove_all(cache_dir);
}

}  // namespace
}  // namespace cudiag::machine_test
