#pragma once
// Installed Python distributions in one site-packages directory, read from
// their metadata (PEP 376 *.dist-info/METADATA, or setuptools' *.egg-info
// PKG-INFO as Debian's python3-* packages ship them) without importing
// anything. Only the header block of METADATA is parsed.
#include <functional>
#include <string>
#include <vector>

#include "core/fsroot.h"
#include "core/pep440.h"  // version_satisfies, moved to core (PEP 440 is not a probe)

namespace cudiag::machine {

struct Requirement {
  std::string name;    // normalized: "nvidia-cudnn-cu12"
  std::string spec;    // "==9.1.0.70", ">=9.8,<10.0", "" for any
  std::string marker;  // "platform_system == \"Linux\"", "extra == \"and-cuda\"", ""
  std::string extra;   // the extra the requirement belongs to ("and-cuda"), "" when unconditional
};

struct Distribution {
  std::string name;          // normalized (PEP 503): lower case, runs of -_. become '-'
  std::string display_name;  // as METADATA's Name: says
  std::string version;
  std::string metadata_path;  // the METADATA / PKG-INFO file the facts come from
  std::vector<Requirement> requires_dist;
  std::string error;  // metadata unreadable; name/version then come from the directory name
};

std::string normalize_dist_name(std::string_view name);

// Distributions in `site_packages` whose normalized name `wanted` accepts
// (the directory listing decides; METADATA is read only for those).
std::vector<Distribution> scan_distributions(const FsRoot& root, const std::string& site_packages,
                                             const std::function<bool(const std::string&)>& wanted);

// One Requires-Dist value: "nvidia-cudnn-cu12 (==9.1.0.70) ; platform_system == 'Linux'".
Requirement parse_requirement(std::string_view text);

}  // namespace cudiag::machine
