#pragma once
// `cudiag fleet PATH…`: many machines' saved reports as one view — how many
// distinct stacks (groups of nodes whose compatibility-deciding values are
// identical), how each minority group differs from the majority (the diff's
// compatibility logic), which findings are where, and who drifted from a
// lock. Reports are streamed: per report only its name and a few 4-byte
// indices are kept; the stacks, findings and drift items are aggregates.
#include <cstdint>
#include <string>
#include <vector>

#include "workflow/fleet_files.h"
#include "workflow/lock_file.h"
#include "workflow/report_diff.h"
#include "workflow/stack.h"

namespace cudiag::kb {
class KnowledgeBase;
}

namespace cudiag::workflow::fleet {

using Members = std::vector<std::uint32_t>;  // indices into FleetResult::names, ascending (input order)

struct Group {
  Stack stack;  // read_stack() of its first report, plus the container image values
  Members members;
  // Against the majority (groups[0]): what the diff would call a compatibility difference, and
  // what it would call the same value read less precisely (never counts).
  std::vector<Difference> differs;
  std::vector<Difference> less_precise;
  // Error findings among its nodes: id -> how many of them.
  std::vector<std::pair<std::string, std::size_t>> errors;
};

struct FleetFinding {
  std::string id;
  std::string severity;  // the worst any node gave it
  std::string layer;
  std::string message;  // as the first node (in input order) wrote it
  Members members;
  Members errors;  // the nodes where it was an error
};

struct LayerNodes {
  std::string layer;
  Members members;
};

struct DriftItem {
  std::string layer;
  std::string key;  // lock spelling: "driver.version", "libraries.cudnn"
  std::string expected;
  std::string actual;  // "" none
  std::string status;  // "drifted", "missing", "added"
  Members members;
};

struct FleetOptions {
  unsigned jobs = 0;               // 0: one thread per CPU
  const LockFile* lock = nullptr;  // --lock
  std::string lock_name;
};

struct FleetResult {
  std::size_t files = 0;           // files tried (readable or not)
  std::vector<std::string> names;  // per file: the report's host name, else its path
  std::vector<bool> named_by_host;
  std::size_t reports = 0;  // files that were cudiag reports
  std::vector<Unreadable> unreadable;
  std::size_t undiagnosed = 0;         // reports without a findings list (counted in groups, not in findings)
  std::vector<Group> groups;           // most nodes first; groups[0] is the majority stack
  std::vector<FleetFinding> findings;  // errors first, then by count
  std::vector<LayerNodes> first_failing;  // in layer order
  bool lock_checked = false;
  std::string lock_name;
  std::vector<DriftItem> drift;  // in layer order
  Members drifted;               // nodes that violate the lock in any way
  double seconds = 0;            // wall time of the scan

  std::size_t error_nodes() const;
  // 0: every report read, one stack, no error finding, no drift; 1 otherwise.
  int exit_code() const;
};

// Reads every file (in parallel), aggregates, and computes outliers and drift.
FleetResult scan_fleet(const Inputs& inputs, const kb::KnowledgeBase& kb, const FleetOptions& options);

// Helpers shared by the renderers.
std::string value_text(const StackValue& v);                  // "550.54.15" or "12.4, 12.8" or "(none)"
std::vector<const StackValue*> shown_values(const Stack& s);  // values the stack has (non-empty)

}  // namespace cudiag::workflow::fleet
