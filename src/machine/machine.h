#pragma once
// The machine one command looks at: its filesystem root (FsRoot: "/", or a
// captured machine under --root), its environment (read through that root,
// values only for allowlisted names) and what the command asks of it
// (CollectOptions: the child timeout, what to collect). A command opens it
// once and hands the same one to the collection (report/collect.h, where
// every probe sees it through probes::ProbeContext) and to the kernel test
// (kernel_test/kernel_test.h, deep_check.h), so both read one root and one
// environment.
#include <utility>

#include "core/collect_options.h"
#include "core/fsroot.h"
#include "machine/environment.h"

namespace cudiag::machine {

struct Machine {
  FsRoot root;
  Environment env;
  CollectOptions options;

  // The machine at options.root, its environment read through it.
  static Machine open(CollectOptions options) {
    FsRoot root(options.root);
    auto env = Environment::read(root);
    return Machine{std::move(root), std::move(env), std::move(options)};
  }
};

}  // namespace cudiag::machine
