#include "explain/anchor_index.h"

#include <map>
#include <memory>
#include <mutex>
#include <queue>

namespace cudiag::explain {

AnchorIndex::AnchorIndex(const std::vector<Signature>& signatures) : count_(signatures.size()) {
  constexpr std::uint32_t kNone = UINT32_MAX;
  for (const auto& sig : signatures) {
    for (const auto& anchor : sig.anchors) {
      for (unsigned char c : anchor) {
        if (class_of_[c] == 0) class_of_[c] = static_cast<std::uint16_t>(classes_++);
      }
    }
  }
  auto add_state = [&] {
    next_.resize(next_.size() + classes_, kNone);
    out_.emplace_back();
    return static_cast<std::uint32_t>(out_.size() - 1);
  };
  add_state();
  for (std::uint32_t s = 0; s < signatures.size(); ++s) {
    for (const auto& anchor : signatures[s].anchors) {
      if (anchor.empty()) continue;
      std::uint32_t state = 0;
      for (unsigned char c : anchor) {
        std::size_t at = state * classes_ + class_of_[c];
        if (next_[at] == kNone) {
          std::uint32_t fresh = add_state();
          next_[at] = fresh;
        }
        state = next_[at];
      }
      out_[state].push_back({s, static_cast<std::uint32_t>(anchor.size())});
    }
  }
  // Failure links breadth first, folded into a complete transition table; each state also
  // reports the anchors that end at its longest proper suffix.
  std::vector<std::uint32_t> fail(out_.size(), 0);
  std::queue<std::uint32_t> todo;
  for (std::size_t c = 0; c < classes_; ++c) {
    auto& to = next_[c];
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
    for (std::size_t c = 0; c < classes_; ++c) {
      std::uint32_t& to = next_[state * classes_ + c];
      if (to == kNone) {
        to = state == 0 ? 0 : next_[fail[state] * classes_ + c];
      } else if (state != 0) {
        fail[to] = next_[fail[state] * classes_ + c];
        todo.push(to);
      }
    }
  }
}

std::vector<AnchorHit> AnchorIndex::find_all(std::string_view lower) const {
  std::vector<AnchorHit> hits;
  std::uint32_t state = 0;
  for (std::size_t i = 0; i < lower.size(); ++i) {
    state = next_[state * classes_ + class_of_[static_cast<unsigned char>(lower[i])]];
    for (const auto& o : out_[state]) hits.push_back({i + 1 - o.length, o.length, o.signature});
  }
  return hits;
}

const AnchorIndex& signature_anchor_index(const kb::KnowledgeBase& kb) {
  static std::mutex mu;
  // Never destroyed, as signatures(kb) is not: freeing it at exit only delays the process's end.
  static auto* built = new std::map<const kb::KnowledgeBase*, std::unique_ptr<AnchorIndex>>;
  const auto& sigs = signatures(kb);  // before the lock: it takes its own
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*built)[&kb];
  if (!slot) slot = std::make_unique<AnchorIndex>(sigs);
  return *slot;
}

}  // namespace cudiag::explain
