#pragma once
// Facts that reporters state in their own words rather than in a tool's
// output: "on Ubuntu 16.04 with GTX1080", "Win10, tensorflow==2.16", "my
// driver is 570.133.20", "under WSL2". They are weaker than a pasted dump:
// read_pasted_facts (pasted_facts.h) keeps one only when no dump line states
// the same key. Pure: one line in, candidate facts out.
#include <string>
#include <vector>

namespace cudiag::explain {

struct ProseFact {
  std::string key;    // an --assume key: gpu, os, wsl, tensorflow, torch, driver
  std::string value;  // as --assume takes it: "GeForce GTX 1080", "windows", "2.16"
  const char* what;   // how the line said it, for the "from the pasted text" label
};

// `line` as pasted, `lowered` the same line in lower case.
std::vector<ProseFact> read_prose_line(const std::string& line, const std::string& lowered);

}  // namespace cudiag::explain
