#pragma once
// The environment dumps people paste into bug reports, read as facts: the
// nvidia-smi table and `nvidia-smi -q`, `python -m torch.utils.collect_env`,
// `nvcc --version`, pip list / pip freeze / conda list, printed
// torch/tensorflow versions, docker/compose/Kubernetes snippets and image
// names, os-release, uname and WSL kernel strings, ldd output and dmesg
// lines. Each fact is one `--assume KEY=VALUE` (report/assume.h), so pasted
// text and stated facts feed the same rules. Pure: text in, facts out.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cudiag::explain {

struct PastedFact {
  std::string key;       // an --assume key: driver, torch, nvcc, os, ...
  std::string value;     // its value: 535.104.05, 2.1.0+cu121, ...
  std::size_t line = 0;  // 1-based line of the text it was read from
  std::string what;      // what the line is: "nvidia-smi header", "pip freeze", ...
  // Read from the reporter's words, not a tool's output: a GPU named in prose is one they have, not the
  // list of all of them.
  bool prose = false;

  std::string assumption() const { return key + "=" + value; }
};

// Every fact the text states, first statement of each key first; a key
// stated again with the same value is dropped, a repeatable key (gpu) keeps
// each distinct value.
std::vector<PastedFact> read_pasted_facts(std::string_view text);

}  // namespace cudiag::explain
