#pragma once
// One fleet member's report, reduced to what `cudiag fleet` aggregates: its
// "projection" (the few facts read_stack() reads — driver, GPUs, runtimes,
// libraries, framework builds, kernel test, container image — as compact
// JSON, with sources, timings and everything else left out), its host name
// when the report carries identity, and its findings as saved.
//
// The projection is the cache key: nodes of one stack give the same bytes,
// so read_stack() (nlohmann + knowledge base, ~tens of µs) runs once per
// distinct projection instead of once per report, and only the raw parse
// (simdjson) is paid per file. tests/unit/workflow/fleet_extract_test.cpp
// checks that read_stack() over the projection equals read_stack() over the
// whole report, so a rule-support change that reads a new field fails there.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace cudiag::workflow::fleet {

// Deeper than this is not a report (a real one nests ~8 levels); refusing it bounds every recursion.
inline constexpr std::size_t kMaxJsonDepth = 64;

struct ReportFinding {
  std::string id;
  std::string severity;  // "error", "warning", "info"
  std::string layer;
  std::string message;
};

struct Extract {
  std::string projection;
  std::string host;        // host.hostname, "" when the report has no identity
  bool diagnosed = false;  // the report has a findings list
  std::vector<ReportFinding> findings;
  std::string first_failing_layer;
};

// One per thread: the parser keeps its buffers between reports.
class Extractor {
 public:
  Extractor();
  ~Extractor();
  Extractor(const Extractor&) = delete;
  Extractor& operator=(const Extractor&) = delete;

  // `data` has `size` bytes of JSON and `capacity` >= size + 64 readable
  // bytes (simdjson's padding). "" when it is a cudiag report (`out` is
  // filled), else why it is not: "truncated JSON …", "not valid JSON: …",
  // "nested deeper than 64 levels", "not a cudiag report …".
  std::string extract(const char* data, std::size_t size, std::size_t capacity, Extract& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cudiag::workflow::fleet
