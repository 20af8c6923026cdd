#pragma once
// A version constraint as people write it in a lock file or a --require:
//   "550.54.15"        exactly this version (missing components are 0: "12.4" == "12.4.0")
//   ">=550,<570"       every comma-separated part must hold
//   "12.4.*"           any version that starts with 12.4 (12.4, 12.4.1, ...)
//   "!=12.5" "*"       not this one; anything
// Framework versions carry a local label ("2.7.0+cu128") or a pre-release tag
// ("2.8.0a0"): ranges compare the numeric part; "==2.7.0+cu128" also needs the
// same label, while "==2.7.0" accepts any label.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/version.h"

namespace cudiag::workflow {

enum class SpecOp { kEq, kNe, kGe, kLe, kGt, kLt, kPrefix, kAny };

struct SpecPart {
  SpecOp op = SpecOp::kEq;
  Version version;
  std::string label;  // the local label after '+', compared for == and != only
};

class VersionSpec {
 public:
  // nullopt with `why` set when `text` is not a constraint.
  static std::optional<VersionSpec> parse(std::string_view text, std::string* why = nullptr);
  // An exact pin of `version` (what `cudiag lock` writes).
  static VersionSpec exactly(std::string_view version);

  bool matches(std::string_view actual) const;
  // `actual` does not match but is what this pin names read with fewer components: "13" or
  // "13.1" for "13.1.0" or "13.1.*" (a file name's soname version, where the library's own
  // function was not called). Only a single exact or wildcard pin names one version to compare.
  bool matches_less_precisely(std::string_view actual) const;
  const std::string& text() const { return text_; }
  bool is_exact() const;  // a single == part

 private:
  std::vector<SpecPart> parts_;
  std::string text_;
};

// The numeric part of a version text ("2.7.0+cu128" -> 2.7.0, "2.8.0a0" -> 2.8.0)
// and its local label ("cu128"); nullopt when it does not start with a number.
struct LooseVersion {
  Version version;
  std::string label;
};
std::optional<LooseVersion> parse_loose_version(std::string_view text);

// `shorter` has no more components than `longer` and agrees on each of them: "9" and "9.1" are
// "9.1.0" read less precisely, "9.2" is not; both must be plain dotted versions.
bool version_prefix_of(std::string_view shorter, std::string_view longer);

// The same versions on both sides, one side (or each, per value) read less precisely:
// {"9"} and {"9.19.0"}. Equal non-empty lists of equal length qualify too.
bool same_but_less_precise(const std::vector<std::string>& a, const std::vector<std::string>& b);

}  // namespace cudiag::workflow
