#pragma once
// Reads what a kernel-test child streamed (child/kernel_test_child.h: one
// JSON record a line) into steps, and names the step a child never finished
// when it hung or crashed: the last "begin" without its "end".
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/subprocess.h"

namespace cudiag::kernel_test {

// Maps an API's numeric result to {name, meaning} ("driver", 100 ->
// {"CUDA_ERROR_NO_DEVICE", "No CUDA-capable devices ..."}); nullopt if unknown.
struct ErrorText {
  std::string name;
  std::string meaning;
};
using ErrorLookup = std::function<std::optional<ErrorText>(std::string_view api, long code)>;

struct ChildLog {
  std::vector<Json> records;  // every parsed record in order, steps completed by the outcome
  bool finished = false;      // the child printed its final "done" record and exited 0
  // The scope/device of the step that never ended, when the child died in it.
  std::optional<Json> unfinished;
};

// Parses `outcome.out`; if the child did not finish, the pending step (or a
// pseudo-step "child process") becomes a failed "end" record whose message
// says what happened to the process.
ChildLog read_child_log(const ChildOutcome& outcome, std::chrono::milliseconds timeout);

// An "end"/"skip" record as a report step: {"name", "status": "ok"|"failed"|
// "skipped", "ms", "code", "error", "message", "detail"}. `message` is the one
// line the text output prints: "cuInit → CUDA_ERROR_NO_DEVICE (100): ...".
Json step_from_record(const Json& record, const ErrorLookup& errors);

}  // namespace cudiag::kernel_test
