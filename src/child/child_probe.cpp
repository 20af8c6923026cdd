#include "child/child_probe.h"

#include <cstdio>
#include <exception>
#include <map>

#include "core/subprocess.h"

namespace cudiag::child {

namespace {
std::map<std::string, ChildProbeFn>& child_table() {
  static std::map<std::string, ChildProbeFn> table;
  return table;
}
}  // namespace

RegisterChildProbe::RegisterChildProbe(std::string kind, ChildProbeFn fn) {
  child_table().emplace(std::move(kind), std::move(fn));
}

int run_child_probe(int argc, char** argv) {
  if (argc < 3) {
    std::fputs("usage: cudiag __probe KIND ARGS...\n", stderr);
    return 2;
  }
  die_with_parent();  // a cudiag killed by SIGKILL takes its hung driver calls with it
  auto it = child_table().find(argv[2]);
  if (it == child_table().end()) {
    std::fprintf(stderr, "unknown child probe %s\n", argv[2]);
    return 2;
  }
  std::vector<std::string> args(argv + 3, argv + argc);
  try {
    Json out = it->second(args);
    auto text = json_text(out, -1);
    text.push_back('\n');
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 3;
  }
}

}  // namespace cudiag::child
