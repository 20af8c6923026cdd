#include "inspect/archive.h"

#include <fmt/format.h>

#include <charconv>
#include <optional>

namespace cudiag::inspect {

namespace {
constexpr std::string_view kArMagic = "!<arch>\n";
constexpr std::uint64_t kArHeaderSize = 60;

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::optional<std::uint64_t> decimal(std::string_view s) {
  s = trim_right(s);
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}
}  // namespace

bool looks_like_archive(ByteView file) {
  return file.contains(0, kArMagic.size()) && file.bytes(0, kArMagic.size(), "ar magic") == kArMagic;
}

std::vector<ArchiveMember> list_archive_members(ByteView file) {
  std::vector<ArchiveMember> members;
  std::string_view long_names;
  std::uint64_t at = kArMagic.size();
  while (at < file.size()) {
    if (at + 1 == file.size() && file.u8(at, "ar padding") == '\n') break;
    ByteView h = file.sub(at, kArHeaderSize, "ar member header");
    if (h.bytes(58, 2, "ar member header") != "`\n")
      throw FormatError("bad ar member header terminator", file.base() + at + 58);
    auto size = decimal(h.bytes(48, 10, "ar member header"));
    if (!size) throw FormatError("bad ar member size", file.base() + at + 48);
    std::uint64_t data = at + kArHeaderSize;
    file.require(data, *size, "ar member");
    std::string_view raw = trim_right(h.bytes(0, 16, "ar member header"));
    ArchiveMember m{std::string(raw), data, *size};
    bool skip = false;
    if (raw == "/" || raw == "/SYM64/" || raw == "__.SYMDEF" || raw == "__.SYMDEF SORTED") {
      skip = true;
    } else if (raw == "//") {
      long_names = file.bytes(data, *size, "ar long-name table");
      skip = true;
    } else if (raw.starts_with("#1/")) {
      auto len = decimal(raw.substr(3));
      if (!len || *len > *size) throw FormatError("bad BSD ar member name length", file.base() + at);
      m.name = std::string(file.c_string(data, *len, "ar member name"));
      m.offset = data + *len;
      m.size = *size - *len;
      skip = m.name.starts_with("__.SYMDEF");
    } else if (raw.size() > 1 && raw.front() == '/') {
      auto off = decimal(raw.substr(1));
      if (!off || *off >= long_names.size()) throw FormatError("bad ar long member name", file.base() + at);
      std::string_view n = long_names.substr(static_cast<std::size_t>(*off));
      n = n.substr(0, n.find('\n'));
      if (n.ends_with('/')) n.remove_suffix(1);
      m.name = std::string(n);
    } else if (raw.ends_with('/')) {
      m.name = std::string(raw.substr(0, raw.size() - 1));
    }
    if (!skip) members.push_back(m);
    at = data + *size + (*size % 2);
  }
  return members;
}

}  // namespace cudiag::inspect
