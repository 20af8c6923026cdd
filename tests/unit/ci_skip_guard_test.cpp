// "CI says what it skipped": under CI (CI=true), a test that skips fails the
// run unless tests/ci_skip_allowlist.txt names it with a reason (a test that
// needs what the CI machine cannot have). Without this a skipped real-stack
// test looks like a passing one, and CI could go green with the real layers
// untested. Outside CI skips stay skips (a developer's laptop may lack nvcc).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace cudiag {
namespace {

std::set<std::string> allowlist() {
  std::set<std::string> names;
  std::ifstream in(std::string(CUDIAG_TEST_DIR) + "/ci_skip_allowlist.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string name;
    words >> name;
    if (!name.empty()) names.insert(name);
  }
  return names;
}

bool under_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && (std::string(ci) == "true" || std::string(ci) == "1");
}

class SkipGuard : public ::testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (!info.result()->Skipped()) return;
    std::string name = std::string(info.test_suite_name()) + "." + info.name();
    if (!allowed_.contains(name)) unexpected_.push_back(name);
  }
  void OnTestProgramEnd(const ::testing::UnitTest&) override {
    if (unexpected_.empty()) return;
    for (const auto& n : unexpected_)
      std::fprintf(stderr, "CI: %s skipped, and tests/ci_skip_allowlist.txt does not allow it\n", n.c_str());
    std::fflush(stderr);
    std::_Exit(1);
  }

 private:
  std::set<std::string> allowed_ = allowlist();
  std::vector<std::string> unexpected_;
};

const bool kInstalled = [] {
  if (under_ci()) ::testing::UnitTest::GetInstance()->listeners().Append(new SkipGuard);
  return true;
}();

TEST(CiSkipGuard, AllowlistIsShortAndEachEntryHasAReason) {
  std::ifstream in(std::string(CUDIAG_TEST_DIR) + "/ci_skip_allowlist.txt");
  ASSERT_TRUE(in) << "tests/ci_skip_allowlist.txt is missing";
  std::string line;
  int entries = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    ++entries;
    auto space = line.find_first_of(" \t");
    ASSERT_NE(space, std::string::npos) << line << ": no reason given";
    EXPECT_NE(line.find_first_not_of(" \t", space), std::string::npos) << line << ": no reason given";
  }
  EXPECT_LE(entries, 5) << "the list of CI skips is meant to stay short";
}

}  // namespace
}  // namespace cudiag
