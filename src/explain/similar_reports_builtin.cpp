// The built-in index: the embedded data/reported/reported_failures.json. Apart
// from similar_reports.cpp so that the comparison itself needs neither the
// embedded files nor a JSON parser (the fuzz target builds it alone).
//
// Parsed with simdjson (~1 ms against nlohmann's ~10 for the 600 KB file),
// except in the portable build (cmake/zig-toolchain.cmake), which cannot link
// Debian's simdjson, a libstdc++ shared library (src/CMakeLists.txt).
#ifdef CUDIAG_HAVE_SIMDJSON
#include <simdjson.h>
#else
#include "core/json.h"
#endif

#include <stdexcept>
#include <string>
#include <vector>

#include "core/embedded.h"
#include "explain/similar_reports.h"

namespace cudiag::explain {

namespace {

constexpr std::string_view kBuiltinPath = "data/reported/reported_failures.json";

// The embedded file is ours and the tests keep it valid: a failure here is a bug, not bad input.
[[noreturn]] void broken(const char* what) {
  throw std::logic_error(std::string(kBuiltinPath) + ": " + what);
}

#ifdef CUDIAG_HAVE_SIMDJSON
ReportIndex* parse(std::string_view bytes) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(bytes);
  simdjson::dom::array entries;
  if (parser.parse(padded)["entries"].get_array().get(entries) != simdjson::SUCCESS)
    broken("no \"entries\" array");
  std::vector<ReportRecord> records;
  for (simdjson::dom::element e : entries) {
    std::string_view url, layer, fix, terms;
    if (e["url"].get(url) || e["layer"].get(layer) || e["fix"].get(fix) || e["terms"].get(terms))
      broken("an entry without url, layer, fix or terms");
    records.push_back({std::string(url), std::string(layer), std::string(fix), std::string(terms)});
  }
  return new ReportIndex(std::move(records));
}
#else
ReportIndex* parse(std::string_view bytes) { return new ReportIndex(Json::parse(bytes), kBuiltinPath); }
#endif

}  // namespace

const ReportIndex& ReportIndex::builtin() {
  // Never destroyed, as the knowledge base: the process is about to give the memory back anyway.
  static const ReportIndex* index = [] {
    const auto* f = find_embedded(kBuiltinPath);
    if (!f) broken("not embedded");
    return parse(f->bytes);
  }();
  return *index;
}

}  // namespace cudiag::explain
