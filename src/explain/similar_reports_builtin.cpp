// The built-in index: the embedded data/reported/reported_failures.json. Apart
// from similar_reports.cpp so that the comparison itself needs neither the
// embedded files nor simdjson (the fuzz target builds it alone).
#include <simdjson.h>

#include <stdexcept>
#include <string>

#include "core/embedded.h"
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
    // The embedded file is ours and the tests keep it valid: a failure here is a bug, not bad input.
    simdjson::dom::parser parser;
    simdjson::padded_string padded(f->bytes);
    simdjson::dom::array entries;
    if (parser.parse(padded)["entries"].get_array().get(entries) != simdjson::SUCCESS)
      throw std::logic_error(std::string(kBuiltinPath) + ": no \"entries\" array");
    std::vector<ReportRecord> records;
    for (simdjson::dom::element e : entries) {
      std::string_view url, layer, fix, terms;
      if (e["url"].get(url) || e["layer"].get(layer) || e["fix"].get(fix) || e["terms"].get(terms))
        throw std::logic_error(std::string(kBuiltinPath) + ": an entry without url, layer, fix or terms");
      records.push_back({std::string(url), std::string(layer), std::string(fix), std::string(terms)});
    }
    return new ReportIndex(std::move(records));
  }();
  return *index;
}

}  // namespace cudiag::explain
