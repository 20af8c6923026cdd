#pragma once
// `cudiag verify LOCK`: does this machine (or a saved report) still match the
// lock? Each pinned value is compared; a drifted layer is then judged by the
// diagnosis of the stack as it is now: no error finding in that layer means
// "drifted but compatible" (a driver moved from 550 to 570 still runs a 12.4
// runtime); an error finding means the drift broke it. A value read less
// precisely than the lock pins it ("13" from a file name against "13.1.0" from
// the library's own function) is consistent but not confirmed: shown, never drift.
#include <string>
#include <vector>

#include "core/json.h"
#include "workflow/lock_file.h"
#include "workflow/stack.h"

namespace cudiag::workflow {

// kUnconfirmed: the actual value is the pinned one read with fewer components; not drift.
enum class DriftStatus { kOk, kUnconfirmed, kDrifted, kMissing, kAdded };
const char* drift_status_name(DriftStatus s);

struct DriftItem {
  std::string layer;
  std::string key;       // lock spelling: "driver.version", "libraries.cudnn", "cuda_runtime.instances"
  std::string expected;  // the lock's value(s)
  std::string actual;    // the machine's value(s); "" none
  DriftStatus status = DriftStatus::kOk;
  std::string detail;  // e.g. the runtime's path
  bool layer_has_error = false;
};

struct VerifyResult {
  std::vector<DriftItem> items;  // every pinned value, in layer order
  bool drifted = false;
  std::size_t unconfirmed = 0;              // items read less precisely than pinned
  bool compatible = true;                   // no error finding on the stack as it is now
  std::vector<std::string> error_findings;  // "layer: id: message"
};

// `report` must be diagnosed (findings and layer_status present).
VerifyResult verify_lock(const LockFile& lock, const Stack& stack, const Json& report);

std::string render_verify_text(const VerifyResult& r, const std::string& lock_name);
Json verify_to_json(const VerifyResult& r, const std::string& lock_name);

}  // namespace cudiag::workflow
