// The anchor automaton finds exactly what one std::string::find per anchor
// finds: every occurrence of every signature's anchor, overlapping ones too.
#include "explain/anchor_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "accuracy_scoring.h"
#include "explain/captures.h"
#include "explain/matcher.h"
#include "kb/knowledge_base.h"

namespace cudiag::explain {
namespace {

using Hit = std::tuple<std::size_t, std::size_t, std::uint32_t>;

std::set<Hit> naive(const std::vector<Signature>& sigs, const std::string& lower) {
  std::set<Hit> out;
  for (std::uint32_t s = 0; s < sigs.size(); ++s) {
    for (const auto& anchor : sigs[s].anchors) {
      for (auto pos = lower.find(anchor); pos != std::string::npos; pos = lower.find(anchor, pos + 1))
        out.insert({pos, anchor.size(), s});
    }
  }
  return out;
}

std::set<Hit> indexed(const AnchorIndex& index, const std::string& lower) {
  std::set<Hit> out;
  for (const auto& h : index.find_all(lower)) out.insert({h.begin, h.length, h.signature});
  return out;
}

TEST(AnchorIndexTest, FindsWhatPerAnchorSearchesFindOnEveryCorpusLine) {
  const auto& kb = kb::KnowledgeBase::builtin();
  const auto& sigs = signatures(kb);
  const auto& index = signature_anchor_index(kb);
  ASSERT_EQ(index.size(), sigs.size());
  int lines = 0, with_hits = 0;
  for (const char* file : {"cases.json", "pasted_cases.json", "heldout18_cases.json"}) {
    const Json doc = scoring::load(file);
    for (const auto& c : doc["cases"]) {
      const std::string lower = ascii_lower(c["text"].get<std::string>());
      auto want = naive(sigs, lower);
      EXPECT_EQ(indexed(index, lower), want) << lower;
      ++lines;
      with_hits += want.empty() ? 0 : 1;
    }
  }
  EXPECT_GT(with_hits, lines / 2);  // the corpus is error text: most have anchors
}

// match_line given the index tries only the signatures anchored on the line: the same matches,
// line by line, over the corpora (a signature without its anchor on the line can never match).
TEST(AnchorIndexTest, MatchLineWithTheIndexMatchesWhatItMatchesWithout) {
  const auto& kb = kb::KnowledgeBase::builtin();
  const auto& sigs = signatures(kb);
  const auto& index = signature_anchor_index(kb);
  auto described = [](const std::vector<RawMatch>& ms) {
    std::vector<std::tuple<const Signature*, std::size_t, std::size_t, std::string>> out;
    for (const auto& m : ms) out.emplace_back(m.sig, m.begin, m.end, m.text);
    return out;
  };
  int matched = 0;
  for (const char* file : {"cases.json", "pasted_cases.json", "heldout30_cases.json"}) {
    const Json doc = scoring::load(file);
    for (const auto& c : doc["cases"]) {
      const std::string text = c["text"].get<std::string>();
      for (std::size_t start = 0; start < text.size();) {
        auto end = std::min(text.find('\n', start), text.size());
        std::string_view line(text.data() + start, end - start);
        for (bool context : {true, false}) {
          auto plain = described(match_line(line, sigs, context));
          EXPECT_EQ(described(match_line(line, sigs, context, {}, &index)), plain) << line;
          matched += plain.empty() ? 0 : 1;
        }
        start = end + 1;
      }
    }
  }
  EXPECT_GT(matched, 500);
}

TEST(AnchorIndexTest, OverlappingAndNestedAnchorsAreAllReported) {
  std::vector<Signature> sigs(3);
  sigs[0].anchors = {"cuda"};
  sigs[1].anchors = {"cuda error", "error"};
  sigs[2].anchors = {"aa"};
  AnchorIndex index(sigs);
  auto hits = indexed(index, "a cuda error; aaa");
  std::set<Hit> want = {{2, 4, 0}, {2, 10, 1}, {7, 5, 1}, {14, 2, 2}, {15, 2, 2}};
  EXPECT_EQ(hits, want);
  EXPECT_TRUE(index.find_all("nothing here").empty());
  EXPECT_TRUE(index.find_all("").empty());
}

// Bytes no anchor has share one class of the compressed table; anchors with bytes beyond ASCII
// (a UTF-8 letter) and texts with every byte value are found as a per-anchor search finds them.
TEST(AnchorIndexTest, EveryByteValueAndNonAsciiAnchorsAreHandled) {
  std::vector<Signature> sigs(3);
  sigs[0].anchors = {
      "gr\xc3\xbc\xc3\x9f"
      "e"};  // "grüße"
  sigs[1].anchors = {"\xff\x01", "x"};
  sigs[2].anchors = {"\xc3\xbc"};
  AnchorIndex index(sigs);
  std::string text;
  for (int round = 0; round < 2; ++round) {
    for (int b = 0; b < 256; ++b) text.push_back(static_cast<char>(b));
    text +=
        "gr\xc3\xbc\xc3\x9f"
        "e";
  }
  EXPECT_EQ(indexed(index, text), naive(sigs, text));
  EXPECT_EQ(indexed(index, text).size(), 6u);  // per round: "grüße", its "ü", the byte 'x'
  EXPECT_EQ(indexed(index, "\xff\x01").size(), 1u);
}

}  // namespace
}  // namespace cudiag::explain
