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

}  // namespace cudiag::workflow
