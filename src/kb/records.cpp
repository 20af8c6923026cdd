#include "kb/records.h"

#include <fmt/format.h>

#include <algorithm>

namespace cudiag::kb {

std::string_view to_string(Confidence c) {
  switch (c) {
    case Confidence::kConfirmed:
      return "confirmed";
    case Confidence::kSingleSource:
      return "single-source";
    case Confidence::kUnconfirmed:
      return "unconfirmed";
    case Confidence::kDisputed:
      return "disputed";
  }
  return "unconfirmed";
}

std::optional<Confidence> parse_confidence(std::string_view text) {
  for (auto c :
       {Confidence::kConfirmed, Confidence::kSingleSource, Confidence::kUnconfirmed, Confidence::kDisputed}) {
    if (to_string(c) == text) return c;
  }
  return std::nullopt;
}

std::optional<Version> MinorVersionCompat::min_for(std::string_view os, const Version& cuda) const {
  for (const auto& e : exceptions) {
    if (e.cuda.major() == cuda.major() && e.cuda.minor() == cuda.minor())
      return os == "windows" ? e.windows_min : e.linux_min;
  }
  return os == "windows" ? windows_min : linux_min;
}

const ArchVariant* Arch::variant(std::string_view suffix) const {
  for (const auto& v : variants) {
    if (v.suffix == suffix) return &v;
  }
  return nullptr;
}

bool CompatRelease::supports_host_branch(long branch) const {
  return std::find(host_branches.begin(), host_branches.end(), branch) != host_branches.end();
}

const CompatRelease* ForwardCompat::release_for(const Version& compat_driver) const {
  for (const auto& r : releases) {
    if (r.compat_driver == compat_driver) return &r;
  }
  return nullptr;
}

const ImageBranches* ForwardCompat::image_branches_for(const Version& image_cuda) const {
  for (const auto& b : image_branches) {
    if (b.first_image <= image_cuda && image_cuda <= b.last_image) return &b;
  }
  return nullptr;
}

Version VersionEncoding::decode(long code) const {
  std::string text;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    long part = code / weights[i];
    if (i > 0) part %= weights[i - 1] / weights[i];
    text += (i ? "." : "") + std::to_string(part);
  }
  return *Version::parse(text);
}

}  // namespace cudiag::kb
