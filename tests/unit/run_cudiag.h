#pragma once
// Running the built cudiag (or any program) from a test: stdout and stderr
// captured separately, the exit status, and a deadline so a hung child fails
// the test instead of stalling the suite. Every test that runs a binary uses
// these.
//   run_program({CUDIAG_BINARY, "--root", root, "report"}, 60)   argv, no shell
//   run_cudiag("kb gpu 'Voodoo 5'")                               a shell command line after the binary
//   run_cudiag_merged("explain --no-collect ...")                 the same, stderr folded into out (2>&1)
//   run_shell("printf x | " + std::string(CUDIAG_BINARY) + " explain -")
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/json.h"

namespace cudiag::test_run {

struct RunResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  bool killed_by_test = false;  // ran past the test's own deadline
  std::string out;
  std::string err;
  double wall_s = 0;
  Json report;  // parsed stdout; discarded when it is not JSON
  bool json_ok() const { return !report.is_discarded() && report.is_object(); }
};

// Runs argv (argv[0] a path), collecting stdout and stderr, killing its process
// group after `deadline_s`.
inline RunResult run_program(const std::vector<std::string>& argv, double deadline_s = 60) {
  RunResult result;
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed");
  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > deadline_s) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      result.killed_by_test = true;
      break;
    }
    if (::poll(fds, 2, 100) < 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char buf[65536];
      auto n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      } else {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.report = Json::parse(result.out, nullptr, false);
  return result;
}

// `/bin/sh -c COMMAND`, as popen(3) runs it: quoting, pipes and redirections work.
inline RunResult run_shell(const std::string& command, double deadline_s = 60) {
  return run_program({"/bin/sh", "-c", command}, deadline_s);
}

// `cudiag ARGS`, ARGS a shell command line ("kb gpu 'Voodoo 5'").
inline RunResult run_cudiag(const std::string& args, double deadline_s = 60) {
  return run_shell(std::string(CUDIAG_BINARY) + " " + args, deadline_s);
}

// The same with stderr folded into out, in the order written (2>&1).
inline RunResult run_cudiag_merged(const std::string& args, double deadline_s = 60) {
  return run_shell(std::string(CUDIAG_BINARY) + " " + args + " 2>&1", deadline_s);
}

}  // namespace cudiag::test_run
