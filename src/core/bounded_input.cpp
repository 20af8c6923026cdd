#include "core/bounded_input.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <vector>

#include "core/errors.h"

namespace cudiag {

namespace {

std::string size_text(std::size_t bytes) { return fmt::format("{} MiB", bytes >> 20); }

// Reads `fd` to its end or until more than `max_bytes`; false on a read error.
bool read_capped(int fd, std::size_t max_bytes, std::string& out, bool& too_big) {
  char buf[65536];
  too_big = false;
  while (true) {
    auto n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) return true;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      too_big = true;
      return true;
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device, not a file";
  if (S_ISSOCK(mode)) return "is a socket, not a file";
  if (S_ISFIFO(mode)) return "is a FIFO, not a file";
  return "is not a regular file";
}

}  // namespace

std::string read_input_bytes(const std::string& path, std::size_t max_bytes, PipeInput pipes) {
  std::string name = path == "-" ? "<stdin>" : path;
  int fd = path == "-" ? ::dup(0) : ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) throw InputError(fmt::format("{}: cannot read: {}", name, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    throw InputError(fmt::format("{}: cannot read: {}", name, std::strerror(err)));
  }
  bool regular = S_ISREG(st.st_mode);
  bool pipe = S_ISFIFO(st.st_mode);
  // A terminal on stdin is the user typing or pasting: read like a pipe.
  bool tty_stdin = path == "-" && S_ISCHR(st.st_mode) && ::isatty(fd) == 1;
  if (!regular && !((pipe || tty_stdin) && pipes == PipeInput::kAllowed)) {
    ::close(fd);
    throw InputError(fmt::format("{}: {}", name, kind_of(st.st_mode)));
  }
  if (regular && static_cast<std::size_t>(st.st_size) > max_bytes) {
    ::close(fd);
    throw InputError(fmt::format("{}: larger than {}, not read", name, size_text(max_bytes)));
  }
  // The user handed this pipe over on purpose: wait for its writer.
  if (pipe && path != "-") ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string out;
  bool too_big = false;
  bool ok = read_capped(fd, max_bytes, out, too_big);
  int err = errno;
  ::close(fd);
  if (!ok) throw InputError(fmt::format("{}: cannot read: {}", name, std::strerror(err)));
  if (too_big) throw InputError(fmt::format("{}: larger than {}, not read", name, size_text(max_bytes)));
  return out;
}

bool read_regular_file(const std::string& path, std::size_t max_bytes, std::string& out, std::string& error) {
  out.clear();
  error.clear();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    if (errno != ENOENT) error = std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = S_ISREG(st.st_mode) ? std::strerror(errno) : kind_of(st.st_mode);
    ::close(fd);
    return false;
  }
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    ::close(fd);
    error = "too large";
    return false;
  }
  bool too_big = false;
  bool ok = read_capped(fd, max_bytes, out, too_big);
  ::close(fd);
  if (!ok || too_big) {
    error = too_big ? "too large" : "read error";
    out.clear();
    return false;
  }
  return true;
}

namespace {
std::string& inputs_read() {
  static std::string names;
  return names;
}
}  // namespace

std::string untrusted_inputs_read() { return inputs_read(); }

Json parse_untrusted_json(std::string_view text, std::string_view name, int max_depth) {
  // One frame per open array/object: the keys seen so far (objects only).
  struct Frame {
    bool object;
    std::set<std::string, std::less<>> keys;
  };
  std::vector<Frame> frames;
  std::string problem;
  auto check = [&](int /*depth*/, Json::parse_event_t event, Json& parsed) -> bool {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        if (static_cast<int>(frames.size()) >= max_depth) {
          problem = fmt::format("nested deeper than {} levels", max_depth);
          throw InputError(problem);
        }
        frames.push_back({event == Json::parse_event_t::object_start, {}});
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        if (!frames.empty()) frames.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!frames.empty() && frames.back().object && parsed.is_string()) {
          const auto& k = parsed.get_ref<const std::string&>();
          if (!frames.back().keys.insert(k).second) {
            problem = fmt::format("duplicate key \"{}\"", k.size() > 64 ? k.substr(0, 64) + "..." : k);
            throw InputError(problem);
          }
        }
        break;
      case Json::parse_event_t::value:
        break;
    }
    return true;
  };
  try {
    Json doc = Json::parse(text, check);
    auto& names = inputs_read();
    if (names.find(name) == std::string::npos) names += (names.empty() ? "" : ", ") + std::string(name);
    return doc;
  } catch (const InputError&) {
    throw InputError(fmt::format("{}: not valid JSON: {}", name, problem));
  } catch (const Json::exception& e) {
    // nlohmann: "[json.exception.parse_error.101] parse error at line 3, column 5: ..."
    std::string what = e.what();
    auto pos = what.find("] ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    if (what.size() > 200) what = what.substr(0, 200) + "...";
    throw InputError(fmt::format("{}: not valid JSON: {}", name, what));
  }
}

}  // namespace cudiag
