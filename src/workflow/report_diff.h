#pragma once
// `cudiag diff A B`: two reports (before/after an upgrade, a working node and
// a failing one), only what differs, layer by layer. Differences that matter
// for compatibility come first and decide the exit code: the stack values
// (driver, the CUDA version it supports, runtimes, toolkits, libraries, GPUs,
// framework builds, the kernel test) and the diagnosis (error and warning
// findings, the first failing layer). Everything else — paths, environment,
// device nodes, sources — is listed after and never counts; timings, the
// collection time and the tool's own version are not compared at all.
#include <string>
#include <vector>

#include "core/json.h"

namespace cudiag::kb {
class KnowledgeBase;
}

namespace cudiag::workflow {

struct Difference {
  std::string layer;
  std::string key;     // a stack key, "finding <id>", or a report path
  std::string before;  // "" absent
  std::string after;
};

struct ReportDiff {
  std::vector<Difference> compatibility;  // count for the exit code
  std::vector<Difference> other;          // never count
  bool matters() const { return !compatibility.empty(); }
};

ReportDiff diff_reports(const Json& a, const Json& b, const kb::KnowledgeBase& kb);

struct Stack;
// The stack values that differ between two stacks (the diff's compatibility
// logic, also used by `cudiag fleet`): `out` matters for compatibility;
// `precision` is the same value read less precisely on one side ("9" vs "9.1.0").
void diff_stacks(const Stack& sa, const Stack& sb, std::vector<Difference>& out,
                 std::vector<Difference>& precision);

std::string render_diff_text(const ReportDiff& d, const std::string& name_a, const std::string& name_b);
Json diff_to_json(const ReportDiff& d, const std::string& name_a, const std::string& name_b);

}  // namespace cudiag::workflow
