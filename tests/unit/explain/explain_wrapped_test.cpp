// A pasted message wrapped across lines matches as one (wrapped_lines.cpp).
// Two kinds of real wraps: every message of cases.json as a terminal or an
// issue form breaks it, at 80 columns on spaces (what `fold -s -w 80` does),
// must still be explained by the same signature with the same layer; and the
// multi-line pastes users post (a RuntimeError followed by "CUDA kernel errors
// might be asynchronously reported...", old PyTorch's message split over four
// lines) are one explanation, not one per line.
#include <gtest/gtest.h>

#include <string>

#include "accuracy_scoring.h"
#include "core/json.h"
#include "explain/explain.h"
#include "kb/knowledge_base.h"

namespace cudiag::explain {
namespace {

// fold -s -w 80: break each line at the last space before column 80 (a word
// longer than the width is cut).
std::string fold80(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (!first) out += '\n';
    first = false;
    while (line.size() > 80) {
      auto cut = line.rfind(' ', 79);
      if (cut == std::string::npos || cut == 0) cut = 80;
      out += line.substr(0, cut + (line[cut] == ' ' ? 1 : 0)) + '\n';
      line = line.substr(cut + (line[cut] == ' ' ? 1 : 0));
    }
    out += line;
  }
  return out;
}

TEST(ExplainWrappedTest, EveryCorpusMessageFoldedAt80ColumnsIsExplainedByTheSameSignature) {
  const Json doc = scoring::load("cases.json");
  int folded = 0, same = 0;
  for (const auto& c : doc["cases"]) {
    const auto text = c["text"].get<std::string>();
    const auto wrapped = fold80(text);
    if (wrapped == text) continue;
    ++folded;
    auto found = explain_text(wrapped, kb::KnowledgeBase::builtin());
    add_message_fixes(found, kb::KnowledgeBase::builtin());
    bool ok = !found.empty() && found.front().id == c["expect_id"].get<std::string>() &&
              (found.front().machine_layer.empty() ? found.front().layer : found.front().machine_layer) ==
                  c["expect_layer"].get<std::string>();
    if (ok) ++same;
    EXPECT_TRUE(ok) << c["source"].get<std::string>() << ": folded text explained as '"
                    << (found.empty() ? std::string("nothing") : found.front().id) << "'\n"
                    << wrapped;
  }
  std::cout << "folded at 80 columns: " << same << "/" << folded << " explained by the same signature\n";
  EXPECT_GE(folded, 50);  // the corpus has long messages; fewer means the fold did nothing
}

TEST(ExplainWrappedTest, AMultiLineRuntimeErrorIsOneExplanation) {
  // https://github.com/kohjingyu/gill/issues/39, verbatim.
  const std::string text =
      "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
      "CUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace "
      "below might be incorrect.\n"
      "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.";
  auto found = explain_text(text, kb::KnowledgeBase::builtin());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, "no-kernel-image");
  EXPECT_EQ(found[0].occurrences, 1u);
}

TEST(ExplainWrappedTest, AMessageBrokenInsideItsPhraseMatchesOnItsFirstLine) {
  // https://github.com/uzh-rpg/rpg_open_remode/issues/9's message as a terminal wraps it.
  const std::string text =
      "ERROR: cudaGetDeviceCount CUDA driver version is insufficient for CUDA runtime\n"
      "version\n"
      "next line";
  auto found = explain_text(text, kb::KnowledgeBase::builtin());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, "runtime-insufficient-driver");
  ASSERT_EQ(found[0].lines.size(), 1u);
  EXPECT_EQ(found[0].lines[0], 1u);
}

TEST(ExplainWrappedTest, LinesThatOnlyMatchAloneAreNotJoined) {
  // Two messages on consecutive lines stay two explanations on their own lines.
  const std::string text =
      "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n"
      "RuntimeError: Found no NVIDIA driver on your system.";
  auto found = explain_text(text, kb::KnowledgeBase::builtin());
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].lines[0], 1u);
  EXPECT_EQ(found[1].lines[0], 2u);
}

}  // namespace
}  // namespace cudiag::explain
