#include "machine/wheel_record.h"

#include <cctype>
#include <charconv>
#include <string_view>

namespace cudiag::machine {
namespace {

// RECORD files of NVIDIA's wheels are a few kilobytes (cuDNN's, the longest,
// about 4 KB); anything far larger is not a RECORD worth reading.
constexpr std::size_t kRecordLimit = 4 << 20;
constexpr int kLevelsAbove = 3;

bool starts_with_nvidia(std::string_view name) {
  constexpr std::string_view kPrefix = "nvidia";
  if (name.size() < kPrefix.size()) return false;
  for (std::size_t i = 0; i < kPrefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(name[i])) != kPrefix[i]) return false;
  }
  return true;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// One RECORD line: `path,hash,size` (CSV; a path with a comma is quoted).
// Returns false for lines without a size (RECORD itself, *.pyc entries).
bool parse_record_line(std::string_view line, std::string& path, std::size_t& size) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::size_t after_path;
  if (!line.empty() && line.front() == '"') {
    auto close = line.find('"', 1);
    if (close == std::string_view::npos) return false;
    path = std::string(line.substr(1, close - 1));
    after_path = close + 1;
  } else {
    after_path = line.find(',');
    if (after_path == std::string_view::npos) return false;
    path = std::string(line.substr(0, after_path));
  }
  auto size_comma = line.rfind(',');
  if (size_comma == std::string_view::npos || size_comma < after_path) return false;
  std::string_view size_text = line.substr(size_comma + 1);
  if (size_text.empty()) return false;
  auto [end, ec] = std::from_chars(size_text.data(), size_text.data() + size_text.size(), size);
  return ec == std::errc() && end == size_text.data() + size_text.size();
}

}  // namespace

std::string leading_components(const std::string& version, int components) {
  std::size_t pos = 0;
  for (int i = 0; i < components; ++i) {
    std::size_t start = pos;
    while (pos < version.size() && std::isdigit(static_cast<unsigned char>(version[pos]))) ++pos;
    if (pos == start) return "";
    if (i + 1 < components) {
      if (pos >= version.size() || version[pos] != '.') return "";
      ++pos;
    }
  }
  return version.substr(0, pos);
}

const std::vector<WheelRecordIndex::Record>& WheelRecordIndex::records_in(const std::string& dir) const {
  auto [it, inserted] = by_dir_.try_emplace(dir);
  if (!inserted) return it->second;
  auto read_dist_infos = [&](const std::string& holder, const std::string& base) {
    for (const auto& name : root_.list_dir(holder)) {
      if (!ends_with(name, ".dist-info") || !starts_with_nvidia(name)) continue;
      std::string_view stem(name);
      stem.remove_suffix(std::string_view(".dist-info").size());
      auto dash = stem.find('-');
      if (dash == std::string_view::npos || dash + 1 >= stem.size()) continue;
      Record rec;
      rec.base = base;
      rec.owner.distribution = std::string(stem.substr(0, dash));
      rec.owner.version = std::string(stem.substr(dash + 1));
      rec.owner.record_path = join_path(join_path(holder, name), "RECORD");
      auto text = root_.read_file(rec.owner.record_path, kRecordLimit);
      if (!text) continue;
      std::string_view rest(*text.data);
      while (!rest.empty()) {
        auto nl = rest.find('\n');
        std::string_view line = rest.substr(0, nl);
        rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
        Entry entry;
        if (!parse_record_line(line, entry.path, entry.size)) continue;
        rec.by_name.emplace(base_name(entry.path), std::move(entry));
      }
      it->second.push_back(std::move(rec));
    }
  };
  read_dist_infos(dir, dir);
  // A folder of dist-infos beside the files they list, as a toolkit assembled
  // from wheels keeps them (/usr/local/cuda/dist-info/nvidia_cublas-….dist-info).
  read_dist_infos(join_path(dir, "dist-info"), dir);
  return it->second;
}

std::optional<WheelOwner> WheelRecordIndex::owner_of(const std::string& library) const {
  auto size = root_.file_size(library);
  if (!size) return std::nullopt;
  const std::string name = base_name(library);
  std::string dir = dir_name(library);
  for (int level = 0; level <= kLevelsAbove; ++level) {
    std::optional<WheelOwner> found;
    bool conflicting = false;
    for (const auto& rec : records_in(dir)) {
      auto [first, last] = rec.by_name.equal_range(name);
      for (auto e = first; e != last; ++e) {
        if (e->second.size != *size) continue;
        WheelOwner owner = rec.owner;
        owner.matched_by = join_path(rec.base, e->second.path) == library ? "path and size" : "name and size";
        if (found && found->version != owner.version) conflicting = true;
        if (!found || owner.matched_by == "path and size") found = owner;
      }
    }
    if (conflicting) return std::nullopt;
    if (found) return found;
    if (dir == "/") break;
    dir = dir_name(dir);
  }
  return std::nullopt;
}

}  // namespace cudiag::machine
