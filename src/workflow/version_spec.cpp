#include "workflow/version_spec.h"

#include <fmt/format.h>

#include <algorithm>

namespace cudiag::workflow {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

struct OpToken {
  std::string_view text;
  SpecOp op;
};
// Two-character operators first, so ">=" is not read as ">".
constexpr OpToken kOps[] = {{"==", SpecOp::kEq}, {"!=", SpecOp::kNe}, {">=", SpecOp::kGe},
                            {"<=", SpecOp::kLe}, {">", SpecOp::kGt},  {"<", SpecOp::kLt},
                            {"=", SpecOp::kEq}};

std::optional<SpecPart> parse_part(std::string_view text, std::string* why) {
  text = trim(text);
  SpecPart part;
  if (text == "*") {
    part.op = SpecOp::kAny;
    return part;
  }
  for (const auto& t : kOps) {
    if (text.starts_with(t.text)) {
      part.op = t.op;
      text = trim(text.substr(t.text.size()));
      break;
    }
  }
  if (text.ends_with(".*")) {
    if (part.op != SpecOp::kEq) {
      if (why) *why = fmt::format("'{}': a wildcard takes no operator", text);
      return std::nullopt;
    }
    part.op = SpecOp::kPrefix;
    text.remove_suffix(2);
  }
  auto loose = parse_loose_version(text);
  if (!loose || text.empty()) {
    if (why)
      *why = text.empty() ? "a version is missing after the operator"
                          : fmt::format("'{}' is not a version", text);
    return std::nullopt;
  }
  // Everything after the numeric part must be a label ("+cu128") or a pre-release tag ("a0", "rc1").
  part.version = loose->version;
  part.label = loose->label;
  return part;
}

bool prefix_matches(const Version& prefix, const Version& actual) {
  for (std::size_t i = 0; i < prefix.parts().size(); ++i) {
    if (actual.part(i) != prefix.part(i)) return false;
  }
  return true;
}

bool part_matches(const SpecPart& p, const LooseVersion& actual) {
  auto c = actual.version <=> p.version;
  switch (p.op) {
    case SpecOp::kAny:
      return true;
    case SpecOp::kEq:
      return c == 0 && (p.label.empty() || p.label == actual.label);
    case SpecOp::kNe:
      return !(c == 0 && (p.label.empty() || p.label == actual.label));
    case SpecOp::kGe:
      return c >= 0;
    case SpecOp::kLe:
      return c <= 0;
    case SpecOp::kGt:
      return c > 0;
    case SpecOp::kLt:
      return c < 0;
    case SpecOp::kPrefix:
      return prefix_matches(p.version, actual.version);
  }
  return false;
}

}  // namespace

std::optional<LooseVersion> parse_loose_version(std::string_view text) {
  text = trim(text);
  if (!text.empty() && (text.front() == 'v' || text.front() == 'V')) text.remove_prefix(1);
  std::size_t end = 0;
  while (end < text.size() && ((text[end] >= '0' && text[end] <= '9') || text[end] == '.')) ++end;
  std::string_view numeric = text.substr(0, end);
  while (numeric.ends_with('.')) numeric.remove_suffix(1);
  auto v = Version::parse(numeric);
  if (!v) return std::nullopt;
  LooseVersion out{*v, ""};
  std::string_view rest = text.substr(end);
  if (auto plus = rest.find('+'); plus != std::string_view::npos)
    out.label = std::string(rest.substr(plus + 1));
  // Anything else must look like a pre-release or build tag, not free text.
  for (char ch : rest) {
    bool ok = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '+' ||
              ch == '.' || ch == '-' || ch == '_';
    if (!ok) return std::nullopt;
  }
  return out;
}

std::optional<VersionSpec> VersionSpec::parse(std::string_view text, std::string* why) {
  VersionSpec spec;
  spec.text_ = std::string(trim(text));
  if (spec.text_.empty()) {
    if (why) *why = "the version is empty";
    return std::nullopt;
  }
  std::string_view rest = spec.text_;
  while (true) {
    auto comma = rest.find(',');
    auto part = parse_part(rest.substr(0, comma), why);
    if (!part) return std::nullopt;
    spec.parts_.push_back(*part);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return spec;
}

VersionSpec VersionSpec::exactly(std::string_view version) {
  VersionSpec spec;
  spec.text_ = std::string(version);
  SpecPart part;
  if (auto loose = parse_loose_version(version)) {
    part.version = loose->version;
    part.label = loose->label;
  }
  spec.parts_.push_back(part);
  return spec;
}

bool VersionSpec::matches(std::string_view actual) const {
  auto loose = parse_loose_version(actual);
  if (!loose) return false;
  for (const auto& p : parts_) {
    if (!part_matches(p, *loose)) return false;
  }
  return true;
}

bool VersionSpec::is_exact() const { return parts_.size() == 1 && parts_[0].op == SpecOp::kEq; }

bool VersionSpec::matches_less_precisely(std::string_view actual) const {
  if (parts_.size() != 1 || matches(actual)) return false;
  const SpecPart& p = parts_.front();
  if (p.op != SpecOp::kEq && p.op != SpecOp::kPrefix) return false;
  return version_prefix_of(actual, p.version.text());
}

bool version_prefix_of(std::string_view shorter, std::string_view longer) {
  auto x = Version::parse(shorter), y = Version::parse(longer);
  if (!x || !y || x->parts().size() > y->parts().size()) return false;
  for (std::size_t i = 0; i < x->parts().size(); ++i) {
    if (x->part(i) != y->part(i)) return false;
  }
  return true;
}

bool same_but_less_precise(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.size() != b.size() || a.empty()) return false;
  auto covered = [](const std::vector<std::string>& from, const std::vector<std::string>& to) {
    return std::all_of(from.begin(), from.end(), [&](const std::string& x) {
      return std::any_of(to.begin(), to.end(), [&](const std::string& y) {
        return version_prefix_of(x, y) || version_prefix_of(y, x);
      });
    });
  };
  return covered(a, b) && covered(b, a);
}

}  // namespace cudiag::workflow
