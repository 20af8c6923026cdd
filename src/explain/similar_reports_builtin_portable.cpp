// The built-in index for the portable build (cmake/zig-toolchain.cmake), which
// cannot link Debian's simdjson (a libstdc++ shared library; see
// src/CMakeLists.txt): the same embedded file, parsed with nlohmann (~10 ms
// instead of ~1). The normal build uses similar_reports_builtin.cpp.
#include <stdexcept>
#include <string>

#include "core/embedded.h"
#include "core/json.h"
#include "explain/similar_reports.h"

namespace cudiag::explain {

namespace {
constexpr std::string_view kBuiltinPath = "data/reported/reported_failures.json";
}  // namespace

const ReportIndex& ReportIndex::builtin() {
  // Never destroyed, as the knowledge base: the process is about to give the memory back anyway.
  static const ReportIndex* index = [] {
    const auto* f = find_embedded(kBuiltinPath);
    if (!f) throw std::logic_error(std::string(kBuiltinPath) + ": not embedded");
    return new ReportIndex(Json::parse(f->bytes), kBuiltinPath);
  }();
  return *index;
}

}  // namespace cudiag::explain
