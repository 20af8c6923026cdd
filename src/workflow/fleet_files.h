#pragma once
// `cudiag fleet`'s inputs: which files are reports, and their bytes.
// A directory is walked recursively for *.json, *.json.gz and *.json.zst (a
// DaemonSet's or job array's output directory holds other files too); a file
// named on the command line is read whatever its name; "-" reads one path per
// line from stdin (find … | cudiag fleet -). Compression is told by the magic
// bytes, not the name. Nothing here is fatal for one file: a file that cannot
// be read is a reason, counted and listed by the caller.
#include <cstddef>
#include <istream>
#include <memory>
#include <string>
#include <vector>

namespace cudiag::workflow::fleet {

// The most bytes one report may have, before and after decompression: a real
// report is ~30 KB (a few MB with --binaries); anything bigger is not one,
// and a bound keeps a gzip bomb from exhausting memory.
inline constexpr std::size_t kMaxReportBytes = 64u << 20;
// Zero bytes after the JSON: simdjson reads up to SIMDJSON_PADDING (64) past the end.
inline constexpr std::size_t kJsonPadding = 64;

struct Unreadable {
  std::string path;
  std::string reason;  // "truncated gzip stream", "not valid JSON: …", "not a cudiag report: …"
};

struct Inputs {
  std::vector<std::string> files;   // in argument order; a directory's files sorted by path
  std::vector<Unreadable> skipped;  // a listed path or directory that could not be opened
};

// Throws InputError("<path>: no such file or directory") for a command-line
// PATH that does not exist (a typo is the user's error, exit 2); a path read
// from stdin that does not exist is data, and becomes a skipped entry.
Inputs expand_inputs(const std::vector<std::string>& args, std::istream& stdin_list);

// Reads one report file into a buffer it reuses from call to call (one per
// thread), with the zero padding simdjson reads past the end.
class ReportFile {
 public:
  ReportFile();
  ~ReportFile();
  ReportFile(const ReportFile&) = delete;
  ReportFile& operator=(const ReportFile&) = delete;

  // "" when read (then data()/size() are the decompressed JSON), else why not.
  std::string read(const std::string& path);
  const char* data() const { return buf_.data(); }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return buf_.size(); }

 private:
  std::string inflate_gzip(std::size_t raw_size);
  std::string inflate_zstd(std::size_t raw_size);
  void reserve(std::vector<char>& v, std::size_t n);

  std::vector<char> raw_;  // the file as read, when compressed
  std::vector<char> buf_;  // the JSON, padded
  std::size_t size_ = 0;
  struct Codecs;
  std::unique_ptr<Codecs> codecs_;  // zlib and zstd streams, reused
};

}  // namespace cudiag::workflow::fleet
