#pragma once
// The program a pasted text is about, for remedies that must name it: "no kernel image" is fixed by
// a build of the package that lacks the GPU's code (vLLM, xformers, a miner, a basecaller), and the
// thread's fix is "install the vLLM built for it", not a list of every package that could be it.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kb/knowledge_base.h"

namespace cudiag::explain {

struct ProgramName {
  std::string search;  // lowercase, as a text names it ("vllm")
  std::string shown;   // as a remedy names it ("vLLM")
};

// The programs the signature table knows: its "programs" (name -> how to show it) and the
// distributions of its "extension_packages", each once. PyTorch itself is not one (the causes name
// it already).
std::vector<ProgramName> program_names(const kb::KnowledgeBase& kb);

class ProgramMentions {
 public:
  // `text_lower`: the whole text, lowercased. A name counts as a word ("vllm" in "vllm/_C.so", not in
  // "myvllmfork"); "-" and "_" are the same character (flash-attn, flash_attn).
  ProgramMentions(std::string_view text_lower, const std::vector<ProgramName>& names);
  // How the program named nearest to 1-based line `line` (an earlier line on a tie), if any.
  std::optional<std::string> nearest(std::size_t line) const;

 private:
  std::vector<std::pair<std::size_t, std::string>> mentions_;  // (1-based line, name)
};

}  // namespace cudiag::explain
