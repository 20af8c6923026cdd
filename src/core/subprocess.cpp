#include "core/subprocess.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

extern char** environ;

namespace cudiag {

namespace {

constexpr std::size_t kMaxChildOutput = 8u << 20;  // a child printing garbage forever is cut off here

using Running = ChildGroup::Running;

// Every running child's pid, for the signal handler: a fixed table of
// atomics, since a handler may not allocate or lock.
constexpr std::size_t kPidSlots = 4096;
std::atomic<int> g_child_pids[kPidSlots];
std::atomic<bool> g_cleanup_installed{false};

void register_child(int pid) {
  for (auto& slot : g_child_pids) {
    int expected = 0;
    if (slot.compare_exchange_strong(expected, pid)) return;
  }
}

void unregister_child(int pid) {
  for (auto& slot : g_child_pids) {
    int expected = pid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

bool is_registered(int pid) {
  return std::any_of(std::begin(g_child_pids), std::end(g_child_pids),
                     [pid](const std::atomic<int>& s) { return s.load() == pid; });
}

// Async-signal-safe: parses /proc/<pid>/stat with read(2) only. The parent
// pid is the field after the state, which follows the last ')'.
int parent_of(const char* pid_name) {
  char path[64] = "/proc/";
  std::size_t n = 6;
  for (const char* p = pid_name; *p && n < sizeof path - 8; ++p) path[n++] = *p;
  const char* tail = "/stat";
  for (const char* p = tail; *p; ++p) path[n++] = *p;
  path[n] = '\0';
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[1024];
  auto len = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (len <= 0) return -1;
  buf[len] = '\0';
  char* close_paren = nullptr;
  for (char* p = buf; *p; ++p)
    if (*p == ')') close_paren = p;
  if (close_paren == nullptr || close_paren[1] != ' ' || close_paren[2] == '\0' || close_paren[3] != ' ')
    return -1;
  int ppid = 0;
  for (char* p = close_paren + 4; *p >= '0' && *p <= '9'; ++p) ppid = ppid * 10 + (*p - '0');
  return ppid;
}

// Async-signal-safe scan of /proc for processes whose parent is this one
// and that we did not start; each is killed and reaped. getdents64 instead
// of opendir, which allocates.
void kill_orphans_signal_safe() {
  int dir = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  int self = ::getpid();
  alignas(8) char buf[8192];
  while (true) {
    long n = ::syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      struct Entry {
        unsigned long long ino;
        long long off;
        unsigned short reclen;
        unsigned char type;
        char name[1];
      };
      auto* e = reinterpret_cast<Entry*>(buf + off);
      off += e->reclen;
      if (e->name[0] < '1' || e->name[0] > '9') continue;
      int pid = 0;
      bool numeric = true;
      for (const char* p = e->name; *p; ++p) {
        if (*p < '0' || *p > '9')
          numeric = false;
        else
          pid = pid * 10 + (*p - '0');
      }
      if (!numeric || pid == self || parent_of(e->name) != self || is_registered(pid)) continue;
      ::kill(pid, SIGKILL);
      int status = 0;
      ::waitpid(pid, &status, 0);
    }
  }
  ::close(dir);
}

void on_fatal_signal(int sig) {
  for (auto& slot : g_child_pids) {
    int pid = slot.load();
    if (pid <= 0) continue;
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  }
  for (auto& slot : g_child_pids) {
    int pid = slot.exchange(0);
    if (pid <= 0) continue;
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
  kill_orphans_signal_safe();
  ::_exit(128 + sig);
}

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
  // A child that inherited an ignored SIGINT/SIGTERM (nohup, a CI runner)
  // still dies when its process group is killed; the default dispositions
  // let it die on the signals cudiag forwards, too.
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&defaults, s);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_storage;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) env_storage.emplace_back(*e);
  // The child probe checks it against getppid() after PR_SET_PDEATHSIG (die_with_parent).
  std::erase_if(env_storage, [](const std::string& s) { return s.rfind("CUDIAG_PARENT_PID=", 0) == 0; });
  env_storage.push_back(fmt::format("CUDIAG_PARENT_PID={}", ::getpid()));
  for (const auto& extra : spec.env_extra) {
    auto name = extra.substr(0, extra.find('=') + 1);
    std::erase_if(env_storage, [&](const std::string& s) { return s.rfind(name, 0) == 0; });
    env_storage.push_back(extra);
  }
  std::vector<char*> envp;
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);

  // The pid is registered before the signal handler could miss it: signals
  // are held across the spawn.
  sigset_t block, old;
  sigemptyset(&block);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, s);
  ::pthread_sigmask(SIG_BLOCK, &block, &old);
  int rc = ::posix_spawn(&run.pid, argv[0], &actions, &attr, argv.data(), envp.data());
  if (rc == 0) register_child(run.pid);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
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
  unregister_child(r.pid);
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

std::size_t max_running_children() {
  static const std::size_t limit = [] {
    auto cores = std::max(1u, std::thread::hardware_concurrency());
    return std::clamp<std::size_t>(4 * static_cast<std::size_t>(cores), 8, 64);
  }();
  return limit;
}

void ChildGroup::add(const ChildSpec& spec, std::chrono::milliseconds timeout) {
  outcomes_.emplace_back();
  running_.emplace_back();
  queued_specs_.emplace_back(spec);
  auto& run = running_.back();
  run.queued = true;
  run.timeout = timeout;
  run.started = std::chrono::steady_clock::now();
  run.deadline = std::chrono::steady_clock::time_point::max();
  start_queued();
}

void ChildGroup::start_queued() {
  std::size_t active = 0;
  for (const auto& r : running_) active += (!r.queued && !r.exited) ? 1 : 0;
  for (std::size_t i = 0; i < running_.size() && active < max_running_children(); ++i) {
    auto& run = running_[i];
    if (!run.queued) continue;
    run.queued = false;
    run.started = std::chrono::steady_clock::now();
    run.deadline = run.started + run.timeout;
    if (spawn(queued_specs_[i], run, outcomes_[i])) {
      ++active;
    } else {
      run.exited = true;
    }
    queued_specs_[i] = ChildSpec{};
  }
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
        unregister_child(r.pid);
      }
    }
    start_queued();
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
      bool done = !r.queued && r.exited && r.out_fd < 0 && r.err_fd < 0;
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
  queued_specs_.clear();
  // A grandchild that setsid()'d out of its child's process group outlives
  // it; as subreaper cudiag adopted it, and it goes with its batch.
  if (g_cleanup_installed.load()) kill_adopted_orphans();
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
    case SIGHUP:
      return "HUP";
    case SIGINT:
      return "INT";
    case SIGQUIT:
      return "QUIT";
    case SIGILL:
      return "ILL";
    case SIGTRAP:
      return "TRAP";
    case SIGABRT:
      return "ABRT";
    case SIGBUS:
      return "BUS";
    case SIGFPE:
      return "FPE";
    case SIGKILL:
      return "KILL";
    case SIGUSR1:
      return "USR1";
    case SIGSEGV:
      return "SEGV";
    case SIGUSR2:
      return "USR2";
    case SIGPIPE:
      return "PIPE";
    case SIGALRM:
      return "ALRM";
    case SIGTERM:
      return "TERM";
    case SIGCHLD:
      return "CHLD";
    case SIGCONT:
      return "CONT";
    case SIGSTOP:
      return "STOP";
    case SIGTSTP:
      return "TSTP";
    case SIGXCPU:
      return "XCPU";
    case SIGXFSZ:
      return "XFSZ";
    case SIGSYS:
      return "SYS";
    default:
      return nullptr;
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

void install_child_cleanup() {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  struct sigaction sa {};
  sa.sa_handler = on_fatal_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&sa.sa_mask, s);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    // A signal the caller ignores (nohup's SIGHUP) stays ignored.
    if (::sigaction(s, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(s, &sa, nullptr);
  }
  g_cleanup_installed = true;
}

void die_with_parent() {
  const char* expected = std::getenv("CUDIAG_PARENT_PID");
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  // The parent may have died before the prctl: then we are already orphaned.
  if (expected != nullptr && std::atoi(expected) != static_cast<int>(::getppid())) ::_exit(137);
}

void kill_adopted_orphans() { kill_orphans_signal_safe(); }

std::string self_executable() {
  char buf[4096];
  auto n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "/proc/self/exe";
  return std::string(buf, static_cast<std::size_t>(n));
}

}  // namespace cudiag
