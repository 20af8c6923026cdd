#pragma once
// Runs child processes in parallel with a deadline. cudiag uses it to run
// every call into an NVIDIA library in a re-executed copy of itself, so a
// library that hangs, crashes or scribbles on memory costs one fact, never
// the report.
#include <chrono>
#include <cstddef>
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

// A set of children started together. start() returns at once, so the
// caller can do its own file-reading work while the children run; wait()
// collects them, killing (the whole process group of) any child still running
// `timeout` after it was started.
class ChildGroup {
 public:
  ChildGroup() = default;
  ChildGroup(const ChildGroup&) = delete;
  ChildGroup& operator=(const ChildGroup&) = delete;
  ~ChildGroup();

  void start(const std::vector<ChildSpec>& specs, std::chrono::milliseconds timeout);
  // Starts one more child at once, with its own deadline `timeout` from now,
  // so the first children run while the caller still works out the rest.
  void add(const ChildSpec& spec, std::chrono::milliseconds timeout);
  std::vector<ChildOutcome> wait();

  struct Running {  // one started child
    int pid = -1;
    int out_fd = -1;
    int err_fd = -1;
    bool exited = false;
    bool queued = false;  // waiting for a free slot (max_running_children())
    std::chrono::milliseconds timeout{0};
    std::chrono::steady_clock::time_point started;
    std::chrono::steady_clock::time_point deadline;
  };

 private:
  // Starts queued children while fewer than max_running_children() run.
  void start_queued();

  std::vector<Running> running_;
  std::vector<ChildSpec> queued_specs_;  // by index into running_, empty once started
  std::vector<ChildOutcome> outcomes_;
};

// start() + wait().
std::vector<ChildOutcome> run_children(const std::vector<ChildSpec>& specs,
                                       std::chrono::milliseconds timeout);

// "killed by SIGSEGV (signal 11)", "timed out after 10000 ms", "exited with 3".
std::string describe_outcome(const ChildOutcome& outcome, std::chrono::milliseconds timeout);

// The path of the running cudiag binary, for re-executing itself.
std::string self_executable();

// Called once by the main process before it starts any child: SIGINT,
// SIGTERM and SIGHUP kill every running child's process group and every
// orphan cudiag adopted, reap them, and exit 128 + the signal (130, 143,
// 129); the process becomes a child subreaper (PR_SET_CHILD_SUBREAPER), so a
// grandchild that setsid()s out of its process group is re-parented to
// cudiag when its parent dies and is killed with the rest.
void install_child_cleanup();

// Called first in a child probe: dies with SIGKILL when the cudiag that
// started it dies (PR_SET_PDEATHSIG), the backstop for a parent killed by
// SIGKILL, which no handler sees.
void die_with_parent();

// Kills and reaps every process re-parented to this one that is not a child
// it started (a setsid()'d grandchild whose parent has exited).
void kill_adopted_orphans();

// At most this many children run at once (a few per core); the rest queue
// and start as earlier ones finish, each with its full timeout.
std::size_t max_running_children();

}  // namespace cudiag
