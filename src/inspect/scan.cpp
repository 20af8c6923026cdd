#include "inspect/scan.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <system_error>

#include "inspect/member_spill.h"
#include "inspect/zip_api.h"

namespace cudiag::inspect {

namespace fs = std::filesystem;

namespace {

bool is_wheel(const std::string& path) { return path.ends_with(".whl"); }

struct ZipClose {
  const ZipApi* zip;
  void operator()(zip_t* z) const { zip->discard(z); }
};
struct ZipFileClose {
  const ZipApi* zip;
  void operator()(zip_file_t* f) const { zip->fclose(f); }
};

// Reads up to `n` bytes of member `index`; empty on any failure.
std::string read_member(const ZipApi* zip, zip_t* z, zip_uint64_t index, std::uint64_t n) {
  std::unique_ptr<zip_file_t, ZipFileClose> f(zip->fopen_index(z, index, 0), ZipFileClose{zip});
  if (!f) return {};
  std::string out(static_cast<std::size_t>(n), '\0');
  std::uint64_t got = 0;
  while (got < n) {
    zip_int64_t r = zip->fread(f.get(), out.data() + got, n - got);
    if (r <= 0) break;
    got += static_cast<std::uint64_t>(r);
  }
  out.resize(static_cast<std::size_t>(got));
  return out;
}

bool binary_magic(std::string_view head) {
  return head.starts_with(
             "\x7f"
             "ELF") ||
         head.starts_with("!<arch>\n") || head.starts_with("\x50\xed\x55\xba");
}

void inspect_one(const std::string& path, bool explicit_path, const InspectOptions& options,
                 std::vector<InspectResult>& out) {
  if (is_wheel(path)) {
    auto members = inspect_wheel(path, options);
    if (members.empty() && explicit_path) {
      // A readable wheel without binaries is listed as "no CUDA device code";
      // an unreadable one already came back as one result carrying the error.
      InspectResult r;
      r.path = path;
      out.push_back(std::move(r));
      return;
    }
    for (auto& m : members) out.push_back(std::move(m));
    return;
  }
  InspectResult r = inspect_file(path, options);
  if (r.type == FileType::kNotBinary) {
    // Inside a directory, files that are not binaries (or cannot even be
    // opened) are not what the user asked about.
    if (!explicit_path) return;
    if (r.ok()) r.error = fmt::format("{}: not an ELF file, ar archive or fatbin", path);
  }
  out.push_back(std::move(r));
}

}  // namespace

std::vector<InspectResult> inspect_wheel(const std::string& path, const InspectOptions& options) {
  std::vector<InspectResult> out;
  std::string why;
  const ZipApi* zip = zip_api(why);
  if (zip == nullptr) {
    InspectResult r;
    r.path = path;
    r.error = fmt::format("{}: cannot read wheel: {}", path, why);
    out.push_back(std::move(r));
    return out;
  }
  int err = 0;
  std::unique_ptr<zip_t, ZipClose> z(zip->open(path.c_str(), ZIP_RDONLY, &err), ZipClose{zip});
  if (!z) {
    zip_error_t ze;
    zip->error_init_with_code(&ze, err);
    InspectResult r;
    r.path = path;
    r.error = fmt::format("{}: cannot read wheel: {}", path, zip->error_strerror(&ze));
    zip->error_fini(&ze);
    out.push_back(std::move(r));
    return out;
  }
  zip_int64_t count = zip->get_num_entries(z.get(), 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    auto index = static_cast<zip_uint64_t>(i);
    zip_stat_t st;
    if (zip->stat_index(z.get(), index, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE) ||
        !(st.valid & ZIP_STAT_NAME))
      continue;
    std::string name = st.name;
    if (name.ends_with('/') || st.size < 16) continue;
    // A first look at the magic decides whether the member is worth reading.
    if (!binary_magic(read_member(zip, z.get(), index, 8))) continue;
    std::string display = fmt::format("{}!/{}", path, name);
    // A member that inflates far beyond what it takes in the archive is a zip
    // bomb, not a library: real wheels' .so files compress 2-4x, never 64x
    // once they are large. Refused before a byte is inflated.
    bool bomb = (st.valid & ZIP_STAT_COMP_SIZE) && st.size > (256ull << 20) &&
                st.size / std::max<zip_uint64_t>(st.comp_size, 1) > 64;
    if (bomb) {
      InspectResult r;
      r.path = display;
      r.error = fmt::format("{}: member inflates from {} to {} bytes (over 64x), not read", display,
                            st.comp_size, st.size);
      out.push_back(std::move(r));
      continue;
    }
    if (st.size > kMaxWheelMember) {
      InspectResult r;
      r.path = display;
      r.error = fmt::format("{}: member of {} bytes is over the {}-byte limit, not read", display, st.size,
                            kMaxWheelMember);
      out.push_back(std::move(r));
      continue;
    }
    InflatedMember member;
    std::string why_not;
    if (!inflate_member(*zip, z.get(), index, st.size, member, why_not)) {
      InspectResult r;
      r.path = display;
      r.error = fmt::format("{}: cannot read wheel member: {}", display, why_not);
      out.push_back(std::move(r));
      continue;
    }
    InspectResult r = inspect_bytes(member.view(), display, options);
    if (r.type != FileType::kNotBinary) out.push_back(std::move(r));
  }
  return out;
}

std::vector<InspectResult> inspect_paths(const std::vector<std::string>& paths,
                                         const InspectOptions& options) {
  std::vector<InspectResult> out;
  for (const auto& path : paths) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      inspect_one(path, true, options, out);
      continue;
    }
    std::vector<std::string> files;
    fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      std::error_code sec;
      auto status = it->symlink_status(sec);
      if (!sec && fs::is_regular_file(status)) files.push_back(it->path().string());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) inspect_one(f, false, options, out);
  }
  return out;
}

}  // namespace cudiag::inspect
