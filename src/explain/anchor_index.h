#pragma once
// Every signature anchor found in one pass over a text (an Aho-Corasick
// automaton over the lowercase anchors) rather than one std::string::find per
// anchor. The wrapped-line join asks, at every line break, whether any anchor
// lies near it: with a few hundred anchors those searches were the largest
// part of explain's time on ordinary logs.
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "explain/signatures.h"
#include "kb/knowledge_base.h"

namespace cudiag::explain {

struct AnchorHit {
  std::size_t begin = 0;  // byte offset of the anchor in the text
  std::size_t length = 0;
  std::uint32_t signature = 0;  // index into the signatures the index was built from
};

class AnchorIndex {
 public:
  explicit AnchorIndex(const std::vector<Signature>& signatures);
  // Every anchor occurrence in `lower` (a lower-cased text), in order of where it ends.
  std::vector<AnchorHit> find_all(std::string_view lower) const;
  // How many signatures it was built from (a check that it belongs to a signature list).
  std::size_t size() const { return count_; }

 private:
  struct Out {
    std::uint32_t signature;
    std::uint32_t length;
  };
  std::vector<std::array<std::uint32_t, 256>> next_;  // transitions, failure links folded in
  std::vector<std::vector<Out>> out_;                 // per state: the anchors that end there
  std::size_t count_ = 0;
};

// The index of signatures(kb), built once per knowledge base as signatures(kb) is.
const AnchorIndex& signature_anchor_index(const kb::KnowledgeBase& kb);

}  // namespace cudiag::explain
