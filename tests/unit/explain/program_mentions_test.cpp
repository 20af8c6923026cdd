// The program a text names, for remedies that must say whose build to change: nearest to the
// message's line, as a word, with "-" and "_" the same, never PyTorch itself.
#include "explain/program_mentions.h"

#include <gtest/gtest.h>

#include "explain/explain.h"
#include "kb/knowledge_base.h"

namespace cudiag::explain {
namespace {

const std::vector<ProgramName> kNames = {{"vllm", "vLLM"}, {"flash-attn", "flash-attn"}, {"cupy", "CuPy"}};

TEST(ProgramMentionsTest, TheNearestNamedProgramAsAWord) {
  ProgramMentions m("import cupy\nline two\nline three\nfrom vllm import llm\nerror here\n", kNames);
  EXPECT_EQ(m.nearest(5), "vLLM");
  EXPECT_EQ(m.nearest(1), "CuPy");
  EXPECT_EQ(m.nearest(2), "CuPy");  // a tie goes to the earlier line
  EXPECT_FALSE(ProgramMentions("myvllmfork failed\n", kNames).nearest(1));
  EXPECT_EQ(ProgramMentions("site-packages/flash_attn_2_cuda.so\n", kNames).nearest(1), "flash-attn");
  EXPECT_EQ(ProgramMentions("flash_attnx failed\n", kNames).nearest(1), std::nullopt);
  EXPECT_EQ(ProgramMentions("site-packages/flash_attn/ops.py\n", kNames).nearest(1), "flash-attn");
  EXPECT_FALSE(ProgramMentions("", kNames).nearest(1));
}

TEST(ProgramMentionsTest, TheTableNamesProgramsAndExtensionPackagesButNotTorch) {
  auto names = program_names(kb::KnowledgeBase::builtin());
  auto has = [&](const std::string& search) {
    return std::any_of(names.begin(), names.end(), [&](const ProgramName& p) { return p.search == search; });
  };
  EXPECT_TRUE(has("vllm"));      // programs
  EXPECT_TRUE(has("xformers"));  // extension_packages
  EXPECT_FALSE(has("torch"));
}

TEST(ProgramMentionsTest, NoKernelImageNamesTheProgramFirstOnlyWhenTheTextNamesOne) {
  const auto& kb = kb::KnowledgeBase::builtin();
  auto named = explain_text(
      "import xformers\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n",
      kb);
  ASSERT_FALSE(named.empty());
  ASSERT_FALSE(named.front().causes.empty());
  EXPECT_EQ(named.front().causes.front().rfind("The text names xformers", 0), 0u)
      << named.front().causes.front();
  auto plain = explain_text(
      "RuntimeError: CUDA error: no kernel image is available for execution on the device\n", kb);
  ASSERT_FALSE(plain.empty());
  for (const auto& c : plain.front().causes) EXPECT_EQ(c.find("The text names"), std::string::npos) << c;
}

}  // namespace
}  // namespace cudiag::explain
