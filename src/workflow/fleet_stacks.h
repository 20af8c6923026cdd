#pragma once
// The part of the fleet scan that runs once per distinct projection, not per
// report: the projection's stack (read_stack plus the container image), the
// group it belongs to and the lock items it violates. Callers serialise
// access (fleet_scan.cpp holds a mutex); misses are rare.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workflow/fleet.h"

namespace cudiag::workflow::fleet {

struct Entry {
  int group = -1;          // index into StackTable::groups; -1 when `bad`
  std::string bad;         // why the report is not readable as a stack ("a field has an unexpected type …")
  std::vector<int> drift;  // indices into StackTable::drift
};

class StackTable {
 public:
  StackTable(const kb::KnowledgeBase& kb, const LockFile* lock) : kb_(kb), lock_(lock) {}

  // A new projection (compact JSON from the extractor) -> its entry.
  Entry add(const std::string& projection);

  std::vector<Stack> groups;     // in order of first sight
  std::vector<DriftItem> drift;  // members empty; filled by the caller

 private:
  int group_of(Stack&& s);
  int drift_of(DriftItem&& d);

  const kb::KnowledgeBase& kb_;
  const LockFile* lock_;
  std::map<std::string, int> group_ids_;  // group key -> index
  std::map<std::string, int> drift_ids_;
};

// The text that identifies a group: every stack value that is present, its values sorted (the diff
// treats "12.4, 12.8" and "12.8, 12.4" as equal and a key without values as absent).
std::string group_key(const Stack& s);

// Sorts the groups (most nodes first), computes each against the majority, the per-group error
// counts and the order of findings, first failing layers and drift items.
void summarise(FleetResult& r);

}  // namespace cudiag::workflow::fleet
