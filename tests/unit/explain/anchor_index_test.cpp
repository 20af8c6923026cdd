// The anchor automaton finds exactly what one std::string::find per anchor
// finds: every occurrence of every signature's anchor, overlapping ones too.
#include "explain/anchor_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "accuracy_scoring.h"
#include "explain/captures.h"
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

}  // namespace
}  // namespace cudiag::explain
