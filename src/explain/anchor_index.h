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
  // Bytes that occur in no anchor share class 0, so a state's row has one entry per class (~75)
  // rather than 256: the full table was ~10 MB for ~10,000 states, and faulting its pages in
  // was a quarter of explain's fixed cost.
  std::array<std::uint16_t, 256> class_of_{};  // up to 257 classes
  std::size_t classes_ = 1;
  std::vector<std::uint32_t> next_;    // state * classes_ + class: transitions, failure links folded in
  std::vector<std::vector<Out>> out_;  // per state: the anchors that end there
  std::size_t count_ = 0;
};

// The index of signatures(kb), built once per knowledge base as signatures(kb) is.
const AnchorIndex& signature_anchor_index(const kb::KnowledgeBase& kb);

}  // namespace cudiag::explain
