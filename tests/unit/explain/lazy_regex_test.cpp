// The signatures' regexes compile when first used: every built-in one must compile and have the
// groups its captures name (the loader no longer compiles them to check), a --kb table's are
// still compiled and checked at load.
#include "explain/lazy_regex.h"

#include <gtest/gtest.h>

#include "../kb/kb_test_util.h"
#include "core/errors.h"
#include "explain/signatures.h"
#include "kb/knowledge_base.h"

namespace cudiag::explain {
namespace {

TEST(LazyRegexTest, EveryBuiltinPatternCompilesWithTheGroupsCountedWithoutCompiling) {
  auto sigs = load_signatures(kb::KnowledgeBase::builtin());
  ASSERT_GT(sigs.size(), 200u);
  for (const auto& s : sigs) {
    EXPECT_FALSE(s.regex.compiled()) << s.id;   // loading the built-in table compiles nothing
    const unsigned counted = s.regex.groups();  // before compiling: the pattern counter's answer
    EXPECT_EQ(s.regex.compile_error(), "") << s.id;
    EXPECT_EQ(counted, s.regex.get().mark_count()) << s.id << ": " << s.pattern;
    EXPECT_EQ(counted, s.captures.size()) << s.id;
  }
}

TEST(LazyRegexTest, GroupsSkipEscapesClassesAndNonCapturingGroups) {
  for (const auto& [pattern, groups] : std::vector<std::pair<std::string, unsigned>>{
           {"plain", 0},
           {"(a)(b)", 2},
           {"\\(not\\) (yes)", 1},
           {"[(](x)[)]", 1},
           {"(?:a)(?=b)(?!c)(d)", 1},
           {"[\\]](e)", 1},
           {"((nested)(groups))", 3},
       }) {
    LazyRegex r(pattern);
    EXPECT_EQ(r.groups(), groups) << pattern;  // counted, not compiled
    EXPECT_FALSE(r.compiled()) << pattern;
    EXPECT_EQ(r.get().mark_count(), groups) << pattern;
  }
}

TEST(LazyRegexTest, CompilesOnceOnFirstUseAndNamesABadPattern) {
  LazyRegex good("cuda (\\d+)");
  EXPECT_FALSE(good.compiled());
  EXPECT_TRUE(std::regex_search("cuda 12", good.get()));
  EXPECT_TRUE(good.compiled());
  LazyRegex copy = good;  // a copied signature shares the compiled regex
  EXPECT_TRUE(copy.compiled());

  LazyRegex bad("(unclosed");
  EXPECT_NE(bad.compile_error(), "");
  try {
    bad.get();
    FAIL() << "a pattern that does not compile was used";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("(unclosed"), std::string::npos) << e.what();
  }
}

TEST(LazyRegexTest, AKbDirectorysTableIsCompiledAtLoad) {
  kb::testing::KbCopy copy("lazy-regex-kb");
  auto kb = kb::KnowledgeBase::load_dir(copy.dir());
  auto sigs = load_signatures(kb);
  for (const auto& s : sigs) EXPECT_TRUE(s.regex.compiled()) << s.id;
}

}  // namespace
}  // namespace cudiag::explain
