#pragma once
// Where the nvcc-built test kernels are (tests/inspect/CMakeLists.txt), and
// small helpers over inspect results shared by the inspector's tests.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "inspect/inspect.h"

namespace cudiag::inspect_test {

// The path of a kernel build, or "" when nvcc was not there to build it.
inline std::string kernel(const std::string& name) {
  std::string p = std::string(CUDIAG_INSPECT_KERNELS) + "/" + name;
  std::error_code ec;
  return std::filesystem::exists(p, ec) ? p : "";
}

#define CUDIAG_REQUIRE_KERNEL(var, name)                  \
  std::string var = ::cudiag::inspect_test::kernel(name); \
  if (var.empty()) GTEST_SKIP() << "no nvcc at build time, so " << (name) << " was not built"

// The set of arch names ("sm_90a", "compute_90") of one kind, optionally
// limited to one section.
inline std::set<std::string> arches(const inspect::InspectResult& r, inspect::EntryKind kind,
                                    const std::string& section = "*") {
  std::set<std::string> out;
  for (const auto& e : r.entries)
    if (e.kind == kind && (section == "*" || r.blobs[e.blob].section == section))
      out.insert(inspect::entry_arch_name(e));
  return out;
}

}  // namespace cudiag::inspect_test
