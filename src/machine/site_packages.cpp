#include "machine/site_packages.h"

#include <algorithm>
#include <cctype>

#include "core/version.h"
#include "machine/text_util.h"

namespace cudiag::machine {

namespace {

// METADATA headers end at the first empty line; the long description after
// it can be hundreds of kilobytes and is never needed.
constexpr std::size_t kMetadataLimit = 4u << 20;

std::string strip_quotes(std::string_view s) {
  s = trim(s);
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    s = s.substr(1, s.size() - 2);
  return std::string(s);
}

// "torch-2.4.0+cu124.dist-info" -> {"torch", "2.4.0+cu124"}. dist-info names
// escape '-' in the name as '_', so the first '-' separates the version.
std::pair<std::string, std::string> split_dir_name(const std::string& stem) {
  auto dash = stem.find('-');
  if (dash == std::string::npos) return {stem, ""};
  auto version = stem.substr(dash + 1);
  // egg-info may append "-py3.11": drop it.
  if (auto py = version.find("-py"); py != std::string::npos) version.erase(py);
  return {stem.substr(0, dash), version};
}

void parse_metadata(std::string_view text, Distribution& d) {
  for (auto line : split_lines(text)) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;                                    // end of the header block
    if (line.front() == ' ' || line.front() == '\t') continue;  // continuation line
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    auto key = line.substr(0, colon);
    auto value = trim(line.substr(colon + 1));
    if (key == "Name") {
      d.display_name = std::string(value);
      d.name = normalize_dist_name(value);
    } else if (key == "Version") {
      d.version = std::string(value);
    } else if (key == "Requires-Dist") {
      auto r = parse_requirement(value);
      if (!r.name.empty()) d.requires_dist.push_back(std::move(r));
    }
  }
}

}  // namespace

std::string normalize_dist_name(std::string_view name) {
  std::string out;
  bool sep = false;
  for (char c : trim(name)) {
    if (c == '-' || c == '_' || c == '.') {
      sep = true;
      continue;
    }
    if (sep && !out.empty()) out.push_back('-');
    sep = false;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

Requirement parse_requirement(std::string_view text) {
  Requirement r;
  std::string_view spec_part = text;
  if (auto semi = text.find(';'); semi != std::string_view::npos) {
    r.marker = std::string(trim(text.substr(semi + 1)));
    spec_part = text.substr(0, semi);
    // extra == "and-cuda"
    if (auto e = r.marker.find("extra"); e != std::string::npos) {
      auto eq = r.marker.find("==", e);
      if (eq != std::string::npos) {
        auto rest = std::string_view(r.marker).substr(eq + 2);
        auto end = rest.find_first_of(")&|");
        auto word = strip_quotes(rest.substr(0, end));
        if (auto sp = word.find(' '); sp != std::string::npos) word = strip_quotes(word.substr(0, sp));
        r.extra = normalize_dist_name(word);
      }
    }
  }
  spec_part = trim(spec_part);
  std::size_t i = 0;
  while (i < spec_part.size() && (std::isalnum(static_cast<unsigned char>(spec_part[i])) ||
                                  spec_part[i] == '-' || spec_part[i] == '_' || spec_part[i] == '.'))
    ++i;
  r.name = normalize_dist_name(spec_part.substr(0, i));
  auto rest = trim(spec_part.substr(i));
  if (rest.starts_with('[')) {  // extras of the requirement itself: jax-cuda12-plugin[with-cuda]
    auto close = rest.find(']');
    rest = close == std::string_view::npos ? std::string_view{} : trim(rest.substr(close + 1));
  }
  if (rest.starts_with('(') && rest.ends_with(')')) rest = trim(rest.substr(1, rest.size() - 2));
  std::string spec;
  for (char c : rest) {
    if (c != ' ') spec.push_back(c);
  }
  r.spec = spec;
  return r;
}

std::vector<Distribution> scan_distributions(const FsRoot& root, const std::string& site_packages,
                                             const std::function<bool(const std::string&)>& wanted) {
  std::vector<Distribution> out;
  for (const auto& entry : root.list_dir(site_packages)) {
    bool dist_info = entry.ends_with(".dist-info");
    bool egg_info = entry.ends_with(".egg-info");
    if (!dist_info && !egg_info) continue;
    auto stem = entry.substr(0, entry.size() - (dist_info ? 10 : 9));
    auto [raw_name, dir_version] = split_dir_name(stem);
    auto name = normalize_dist_name(raw_name);
    if (!wanted(name)) continue;
    Distribution d;
    d.name = name;
    d.display_name = raw_name;
    d.version = dir_version;
    auto dir = join_path(site_packages, entry);
    // An egg-info may be a single file holding PKG-INFO's content.
    d.metadata_path = dist_info ? dir + "/METADATA" : root.is_dir(dir) ? dir + "/PKG-INFO" : dir;
    auto text = root.read_file(d.metadata_path, kMetadataLimit);
    if (text) {
      parse_metadata(*text.data, d);
      if (d.name.empty()) d.name = name;
    } else {
      d.error = text.error;
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace cudiag::machine
