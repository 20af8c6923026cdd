#include "core/subprocess.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace cudiag {

namespace {

constexpr std::size_t kMaxChildOutput = 8u << 20;  // a child printing garbage forever is cut off here

using Running = ChildGroup::Running;

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

bool spawn(const ChildSpec& spec, Running& run, ChildOutcome& outcome) {
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    outcome.spawn_error = std::strerror(errno);
    return false;
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    outcome.spawn_error = std::strerror(errno);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group, so a timeout kills whatever the library forked too.
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);

  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_storage;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) env_storage.emplace_back(*e);
  for (const auto& extra : spec.env_extra) {
    auto name = extra.substr(0, extra.find('=') + 1);
    std::erase_if(env_storage, [&](const std::string& s) { return s.rfind(name, 0) == 0; });
    env_storage.push_back(extra);
  }
  std::vector<char*> envp;
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);

  int rc = ::posix_spawn(&run.pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    outcome.spawn_error = std::strerror(rc);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return false;
  }
  run.out_fd = out_pipe[0];
  run.err_fd = err_pipe[0];
  return true;
}

void drain(int& fd, std::string& sink, ChildOutcome& outcome) {
  char buf[65536];
  auto n = ::read(fd, buf, sizeof buf);
  if (n > 0) {
    auto room = kMaxChildOutput - std::min(kMaxChildOutput, sink.size());
    auto take = std::min(room, static_cast<std::size_t>(n));
    sink.append(buf, take);
    if (take < static_cast<std::size_t>(n)) outcome.output_truncated = true;
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    close_fd(fd);
  }
}

void record_status(int status, ChildOutcome& outcome) {
  if (WIFEXITED(status)) {
    outcome.status = ChildOutcome::Status::kExited;
    outcome.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    outcome.status = ChildOutcome::Status::kSignaled;
    outcome.signal = WTERMSIG(status);
  }
}

// Kills (the process group of) a child that is still running and records it
// as timed out; its pipes are closed by the caller.
void kill_overdue(Running& r, ChildOutcome& outcome, double elapsed_ms) {
  if (r.exited || r.pid <= 0) return;
  ::kill(-r.pid, SIGKILL);
  ::kill(r.pid, SIGKILL);
  int status = 0;
  ::waitpid(r.pid, &status, 0);
  outcome.status = ChildOutcome::Status::kTimedOut;
  outcome.elapsed_ms = elapsed_ms;
  r.exited = true;
}

}  // namespace

ChildGroup::~ChildGroup() {
  if (!running_.empty()) wait();
}

void ChildGroup::start(const std::vector<ChildSpec>& specs, std::chrono::milliseconds timeout) {
  for (const auto& spec : specs) add(spec, timeout);
}

void ChildGroup::add(const ChildSpec& spec, std::chrono::milliseconds timeout) {
  outcomes_.emplace_back();
  running_.emplace_back();
  auto& run = running_.back();
  run.started = std::chrono::steady_clock::now();
  run.deadline = run.started + timeout;
  if (!spawn(spec, run, outcomes_.back())) run.exited = true;
}

std::vector<ChildOutcome> ChildGroup::wait() {
  using Clock = std::chrono::steady_clock;
  auto& running = running_;
  auto& outcomes = outcomes_;
  auto elapsed_ms = [&](const Running& r) {
    return std::chrono::duration<double, std::milli>(Clock::now() - r.started).count();
  };
  while (true) {
    std::vector<pollfd> fds;
    std::vector<std::pair<std::size_t, bool>> owners;  // child index, is stdout
    for (std::size_t i = 0; i < running.size(); ++i) {
      if (running[i].out_fd >= 0) {
        fds.push_back({running[i].out_fd, POLLIN, 0});
        owners.emplace_back(i, true);
      }
      if (running[i].err_fd >= 0) {
        fds.push_back({running[i].err_fd, POLLIN, 0});
        owners.emplace_back(i, false);
      }
    }
    // Reap children whose pipes are closed (or that closed them early).
    for (std::size_t i = 0; i < running.size(); ++i) {
      auto& r = running[i];
      if (r.exited || r.pid < 0) continue;
      int status = 0;
      pid_t got = ::waitpid(r.pid, &status, WNOHANG);
      if (got == r.pid) {
        record_status(status, outcomes[i]);
        outcomes[i].elapsed_ms = elapsed_ms(r);
        r.exited = true;
      }
    }
    // Kill each child whose own deadline has passed; the rest go on.
    auto now = Clock::now();
    for (std::size_t i = 0; i < running.size(); ++i) {
      if (now >= running[i].deadline) kill_overdue(running[i], outcomes[i], elapsed_ms(running[i]));
    }
    bool all_done = true;
    // Poll until the next child's deadline; give up on open pipes (a
    // grandchild that escaped the process group) at the last deadline.
    auto last = Clock::time_point::min();
    auto next = Clock::time_point::max();
    for (auto& r : running) {
      bool done = r.exited && r.out_fd < 0 && r.err_fd < 0;
      all_done = all_done && done;
      if (!done) last = std::max(last, r.deadline);
      if (!r.exited) next = std::min(next, r.deadline);
    }
    if (all_done || now >= last) break;
    auto deadline = std::min(next, last);
    if (fds.empty()) {
      // Output closed but a child still runs (it closed stdout itself): poll its exit.
      ::usleep(1000);
      continue;
    }
    auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    int n = ::poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(wait_ms + 1, 1000)));
    if (n < 0 && errno != EINTR) break;
    for (std::size_t k = 0; k < fds.size(); ++k) {
      if (fds[k].revents == 0) continue;
      auto [i, is_out] = owners[k];
      auto& r = running[i];
      drain(is_out ? r.out_fd : r.err_fd, is_out ? outcomes[i].out : outcomes[i].err, outcomes[i]);
    }
  }
  // Whatever is still running has passed its deadline.
  for (std::size_t i = 0; i < running.size(); ++i) {
    auto& r = running[i];
    kill_overdue(r, outcomes[i], elapsed_ms(r));
    close_fd(r.out_fd);
    close_fd(r.err_fd);
  }
  running_.clear();
  auto result = std::move(outcomes_);
  outcomes_.clear();
  return result;
}

std::vector<ChildOutcome> run_children(const std::vector<ChildSpec>& specs,
                                       std::chrono::milliseconds timeout) {
  ChildGroup group;
  group.start(specs, timeout);
  return group.wait();
}

namespace {
// sigabbrev_np() would do, but it is GLIBC_2.32 and the portable binary runs
// on glibc 2.28 (docs/ARCHITECTURE.md, "Portable binary and wheel").
const char* signal_abbrev(int sig) {
  switch (sig) {
    case SIGHUP: return "HUP";
    case SIGINT: return "INT";
    case SIGQUIT: return "QUIT";
    case SIGILL: return "ILL";
    case SIGTRAP: return "TRAP";
    case SIGABRT: return "ABRT";
    case SIGBUS: return "BUS";
    case SIGFPE: return "FPE";
    case SIGKILL: return "KILL";
    case SIGUSR1: return "USR1";
    case SIGSEGV: return "SEGV";
    case SIGUSR2: return "USR2";
    case SIGPIPE: return "PIPE";
    case SIGALRM: return "ALRM";
    case SIGTERM: return "TERM";
    case SIGCHLD: return "CHLD";
    case SIGCONT: return "CONT";
    case SIGSTOP: return "STOP";
    case SIGTSTP: return "TSTP";
    case SIGXCPU: return "XCPU";
    case SIGXFSZ: return "XFSZ";
    case SIGSYS: return "SYS";
    default: return nullptr;
  }
}
}  // namespace

std::string describe_outcome(const ChildOutcome& outcome, std::chrono::milliseconds timeout) {
  switch (outcome.status) {
    case ChildOutcome::Status::kExited:
      return fmt::format("exited with status {}", outcome.exit_code);
    case ChildOutcome::Status::kSignaled: {
      const char* name = signal_abbrev(outcome.signal);
      return fmt::format("killed by SIG{} (signal {})", name ? name : "?", outcome.signal);
    }
    case ChildOutcome::Status::kTimedOut:
      return fmt::format("timed out after {} ms and was killed", timeout.count());
    case ChildOutcome::Status::kSpawnFailed:
      return fmt::format("could not be started: {}", outcome.spawn_error);
  }
  return "unknown outcome";
}

std::string self_executable() {
  char buf[4096];
  auto n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "/proc/self/exe";
  return std::string(buf, static_cast<std::size_t>(n));
}

}  // namespace cudiag
