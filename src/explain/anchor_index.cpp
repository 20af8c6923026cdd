#include "explain/anchor_index.h"

#include <map>
#include <memory>
#include <mutex>
#include <queue>

namespace cudiag::explain {

AnchorIndex::AnchorIndex(const std::vector<Signature>& signatures) : count_(signatures.size()) {
  constexpr std::uint32_t kNone = UINT32_MAX;
  std::array<std::uint32_t, 256> empty;
  empty.fill(kNone);
  next_.push_back(empty);
  out_.emplace_back();
  for (std::uint32_t s = 0; s < signatures.size(); ++s) {
    for (const auto& anchor : signatures[s].anchors) {
      if (anchor.empty()) continue;
      std::uint32_t state = 0;
      for (unsigned char c : anchor) {
        if (next_[state][c] == kNone) {
          next_[state][c] = static_cast<std::uint32_t>(next_.size());
          next_.push_back(empty);
          out_.emplace_back();
        }
        state = next_[state][c];
      }
      out_[state].push_back({s, static_cast<std::uint32_t>(anchor.size())});
    }
  }
  // Failure links breadth first, folded into a complete transition table; each state also
  // reports the anchors that end at its longest proper suffix.
  std::vector<std::uint32_t> fail(next_.size(), 0);
  std::queue<std::uint32_t> todo;
  for (auto& to : next_[0]) {
    if (to == kNone) {
      to = 0;
    } else {
      todo.push(to);
    }
  }
  while (!todo.empty()) {
    std::uint32_t state = todo.front();
    todo.pop();
    if (state != 0) {
      const auto inherited = out_[fail[state]];
      out_[state].insert(out_[state].end(), inherited.begin(), inherited.end());
    }
    for (std::size_t c = 0; c < 256; ++c) {
      std::uint32_t to = next_[state][c];
      if (to == kNone) {
        next_[state][c] = state == 0 ? 0 : next_[fail[state]][c];
      } else if (state != 0) {
        fail[to] = next_[fail[state]][c];
        todo.push(to);
      }
    }
  }
}

std::vector<AnchorHit> AnchorIndex::find_all(std::string_view lower) const {
  std::vector<AnchorHit> hits;
  std::uint32_t state = 0;
  for (std::size_t i = 0; i < lower.size(); ++i) {
    state = next_[state][static_cast<unsigned char>(lower[i])];
    for (const auto& o : out_[state]) hits.push_back({i + 1 - o.length, o.length, o.signature});
  }
  return hits;
}

const AnchorIndex& signature_anchor_index(const kb::KnowledgeBase& kb) {
  static std::mutex mu;
  static std::map<const kb::KnowledgeBase*, std::unique_ptr<AnchorIndex>> built;
  const auto& sigs = signatures(kb);  // before the lock: it takes its own
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = built[&kb];
  if (!slot) slot = std::make_unique<AnchorIndex>(sigs);
  return *slot;
}

}  // namespace cudiag::explain
