#include "workflow/fleet_files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unordered_set>

#include "core/errors.h"

namespace cudiag::workflow::fleet {

namespace fs = std::filesystem;

namespace {

// A zstd window over 128 MiB is not a report; refusing it bounds the decoder's memory.
constexpr int kMaxZstdWindowLog = 27;

bool report_name(const std::string& name) {
  return name.ends_with(".json") || name.ends_with(".json.gz") || name.ends_with(".json.zst");
}

class Collector {
 public:
  explicit Collector(Inputs& in) : in_(in) {}

  void add_file(const std::string& path) {
    if (seen_.insert(fs::path(path).lexically_normal().string()).second) in_.files.push_back(path);
  }

  // Depth-first, each directory's entries in name order; symbolic links to
  // directories are not followed (a link back up would loop).
  void walk(const std::string& dir) {
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
      in_.skipped.push_back({dir, fmt::format("cannot open directory: {}", ec.message())});
      return;
    }
    std::vector<std::pair<std::string, bool>> entries;  // path, is a directory
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec) break;
      std::error_code e2;
      bool link = it->is_symlink(e2);
      bool is_dir = !link && it->is_directory(e2);
      entries.emplace_back(it->path().string(), is_dir);
    }
    if (ec) in_.skipped.push_back({dir, fmt::format("cannot list directory: {}", ec.message())});
    std::sort(entries.begin(), entries.end());
    for (const auto& [path, is_dir] : entries) {
      if (is_dir) {
        walk(path);
      } else if (report_name(fs::path(path).filename().string())) {
        std::error_code e3;
        if (fs::is_regular_file(path, e3)) add_file(path);  // a dangling link or a FIFO is not a report
      }
    }
  }

  // `from_command_line`: a missing path is the user's error (exit 2), not a fleet member's.
  void add(const std::string& path, bool from_command_line) {
    std::error_code ec;
    auto st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
      std::string why = ec ? ec.message() : "no such file or directory";
      if (from_command_line) throw InputError(fmt::format("{}: {}", path, why));
      in_.skipped.push_back({path, why});
      return;
    }
    if (fs::is_directory(st)) {
      walk(path);
    } else {
      add_file(path);
    }
  }

 private:
  Inputs& in_;
  std::unordered_set<std::string> seen_;  // a file named twice (a directory and one of its files) counts once
};

std::string errno_text(const char* what) { return fmt::format("{}: {}", what, std::strerror(errno)); }

}  // namespace

Inputs expand_inputs(const std::vector<std::string>& args, std::istream& stdin_list) {
  Inputs in;
  Collector c(in);
  bool stdin_read = false;
  for (const auto& a : args) {
    if (a != "-") {
      c.add(a, true);
      continue;
    }
    if (stdin_read) continue;
    stdin_read = true;
    std::string line;
    while (std::getline(stdin_list, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) c.add(line, false);
    }
  }
  return in;
}

struct ReportFile::Codecs {
  z_stream z{};
  bool z_ready = false;
  ZSTD_DCtx* zstd = nullptr;
  ~Codecs() {
    if (z_ready) inflateEnd(&z);
    if (zstd) ZSTD_freeDCtx(zstd);
  }
};

ReportFile::ReportFile() : codecs_(std::make_unique<Codecs>()) {}
ReportFile::~ReportFile() = default;

void ReportFile::reserve(std::vector<char>& v, std::size_t n) {
  if (v.size() < n) v.resize(std::max(n, v.size() * 2));
}

std::string ReportFile::read(const std::string& path) {
  size_ = 0;
  // O_NONBLOCK: a FIFO that slipped into the list must not block the scan.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return errno_text("cannot open");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    std::string why = errno_text("cannot stat");
    ::close(fd);
    return why;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return "not a regular file";
  }
  if (static_cast<std::uint64_t>(st.st_size) > kMaxReportBytes) {
    ::close(fd);
    return fmt::format("larger than {} MiB: not a report", kMaxReportBytes >> 20);
  }
  auto want = static_cast<std::size_t>(st.st_size);
  reserve(buf_, want + kJsonPadding);
  std::size_t got = 0;
  while (got < want) {
    ssize_t n = ::read(fd, buf_.data() + got, want - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::string why = errno_text("read failed");
      ::close(fd);
      return why;
    }
    if (n == 0) break;  // shrank since fstat: what is there is what we judge
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  const auto* b = reinterpret_cast<const unsigned char*>(buf_.data());
  if (got >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
    std::swap(raw_, buf_);
    return inflate_gzip(got);
  }
  if (got >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd) {
    std::swap(raw_, buf_);
    return inflate_zstd(got);
  }
  size_ = got;
  std::memset(buf_.data() + size_, 0, kJsonPadding);
  return "";
}

std::string ReportFile::inflate_gzip(std::size_t raw_size) {
  auto& c = *codecs_;
  if (!c.z_ready) {
    if (inflateInit2(&c.z, 15 + 16) != Z_OK) return "gzip: cannot initialise zlib";
    c.z_ready = true;
  } else {
    inflateReset(&c.z);
  }
  reserve(buf_, raw_size * 8 + kJsonPadding);
  c.z.next_in = reinterpret_cast<Bytef*>(raw_.data());
  c.z.avail_in = static_cast<uInt>(raw_size);
  std::size_t out = 0;
  bool ended = false;
  for (;;) {
    if (out + kJsonPadding >= buf_.size()) {
      if (buf_.size() > kMaxReportBytes)
        return fmt::format("larger than {} MiB once decompressed", kMaxReportBytes >> 20);
      buf_.resize(buf_.size() * 2);
    }
    c.z.next_out = reinterpret_cast<Bytef*>(buf_.data() + out);
    c.z.avail_out = static_cast<uInt>(buf_.size() - kJsonPadding - out);
    uInt before = c.z.avail_out;
    int rc = inflate(&c.z, Z_NO_FLUSH);
    out += before - c.z.avail_out;
    if (rc == Z_STREAM_END) {
      ended = true;
      if (c.z.avail_in == 0) break;
      inflateReset(&c.z);  // `cat a.gz b.gz` is one valid gzip file of two members
      continue;
    }
    if (rc == Z_BUF_ERROR && c.z.avail_in == 0) {
      ended = false;
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR)
      return fmt::format("corrupt gzip data ({})", c.z.msg ? c.z.msg : "inflate failed");
    ended = false;
    if (out > kMaxReportBytes)
      return fmt::format("larger than {} MiB once decompressed", kMaxReportBytes >> 20);
  }
  if (!ended) return "truncated gzip stream";
  if (out > kMaxReportBytes)
    return fmt::format("larger than {} MiB once decompressed", kMaxReportBytes >> 20);
  size_ = out;
  std::memset(buf_.data() + size_, 0, kJsonPadding);
  return "";
}

std::string ReportFile::inflate_zstd(std::size_t raw_size) {
  auto& c = *codecs_;
  if (!c.zstd) {
    c.zstd = ZSTD_createDCtx();
    if (!c.zstd) return "zstd: cannot create a decoder";
    ZSTD_DCtx_setParameter(c.zstd, ZSTD_d_windowLogMax, kMaxZstdWindowLog);
  } else {
    ZSTD_DCtx_reset(c.zstd, ZSTD_reset_session_only);
  }
  reserve(buf_, raw_size * 8 + kJsonPadding);
  ZSTD_inBuffer in{raw_.data(), raw_size, 0};
  std::size_t out = 0;
  std::size_t rc = 1;
  for (;;) {
    if (out + kJsonPadding >= buf_.size()) {
      if (buf_.size() > kMaxReportBytes)
        return fmt::format("larger than {} MiB once decompressed", kMaxReportBytes >> 20);
      buf_.resize(buf_.size() * 2);
    }
    ZSTD_outBuffer dst{buf_.data() + out, buf_.size() - kJsonPadding - out, 0};
    rc = ZSTD_decompressStream(c.zstd, &dst, &in);
    out += dst.pos;
    if (ZSTD_isError(rc)) return fmt::format("corrupt zstd data ({})", ZSTD_getErrorName(rc));
    if (out > kMaxReportBytes)
      return fmt::format("larger than {} MiB once decompressed", kMaxReportBytes >> 20);
    // Every frame complete and all input used: done. Asking again would return the next frame's
    // header hint (non-zero) and read as truncated when the output had filled exactly.
    if (rc == 0 && in.pos == in.size) break;
    // All input consumed and the output not full: the decoder has nothing more to give.
    if (in.pos == in.size && dst.pos < dst.size) break;
  }
  if (rc != 0) return "truncated zstd stream";
  size_ = out;
  std::memset(buf_.data() + size_, 0, kJsonPadding);
  return "";
}

}  // namespace cudiag::workflow::fleet
