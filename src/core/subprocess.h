#pragma once
// Runs child processes in parallel with a deadline. cudiag uses it to run
// every call into an NVIDIA library in a re-executed copy of itself, so a
// library that hangs, crashes or scribbles on memory costs one fact, never
// the report.
#include <chrono>
#include <string>
#include <vector>

namespace cudiag {

struct ChildSpec {
  std::vector<std::string> argv;       // argv[0] is the program path
  std::vector<std::string> env_extra;  // "NAME=value" added to the inherited environment
};

struct ChildOutcome {
  enum class Status { kExited, kSignaled, kTimedOut, kSpawnFailed };
  Status status = Status::kSpawnFailed;
  int exit_code = -1;
  int signal = 0;
  std::string out;
  std::string err;
  std::string spawn_error;
  double elapsed_ms = 0;
  bool output_truncated = false;
};

// Starts all children at once and waits for each until `timeout` after the
// start; a child still running then is killed (its whole process group).
std::vector<ChildOutcome> run_children(const std::vector<ChildSpec>& specs,
                                       std::chrono::milliseconds timeout);

// "killed by SIGSEGV (signal 11)", "timed out after 10000 ms", "exited with 3".
std::string describe_outcome(const ChildOutcome& outcome, std::chrono::milliseconds timeout);

// The path of the running cudiag binary, for re-executing itself.
std::string self_executable();

}  // namespace cudiag
