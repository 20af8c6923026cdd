#pragma once
// The records the knowledge base hands out. Each derives from Provenance, so a
// finding built from any of them can cite where the fact comes from and how
// sure we are of it (see docs/knowledge-base.md for the confidence levels).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/version.h"

namespace cudiag::kb {

struct Source {
  std::string url;
  std::string section;
};

// How well a value is established. kDisputed: sources disagree, the note says
// which value was chosen and why.
enum class Confidence { kConfirmed, kSingleSource, kUnconfirmed, kDisputed };
std::string_view to_string(Confidence c);
std::optional<Confidence> parse_confidence(std::string_view text);

struct Provenance {
  std::vector<Source> sources;  // never empty after loading; the first is the primary one
  Confidence confidence = Confidence::kConfirmed;
  std::string note;  // caveats and disagreements between sources
  const Source& source() const { return sources.front(); }
};

// An API return code: api is "driver" (CUresult), "runtime" (cudaError_t) or "nvml" (nvmlReturn_t).
struct ErrorCode : Provenance {
  std::string api;
  long code = 0;
  std::string name;
  std::string meaning;
  std::string layer;  // the layer the status points at, when the table says (library statuses)
  // What the API's own string function prints for it (cudaGetErrorString, cuGetErrorString,
  // nvmlErrorString), when recorded: how the error appears in logs without its name.
  std::string message;
  // Runtime errors: the number CUDA 10.0 and older gave this error, before CUDA 10.1 renumbered the
  // runtime's errors (cudaErrorUnknown was 30, cudaErrorNoDevice 38).
  std::optional<long> legacy_code;
};

// One OS column of a toolkit row.
struct OsDriver {
  std::optional<Version> min;  // minimum for full features
  std::string min_from =
      "table3";                    // "table3" (RN Table 3) or "bundled" (T3 not read; the installer's driver)
  std::optional<Version> bundled;  // the driver in the installer
  Confidence confidence = Confidence::kConfirmed;
  std::string note;
};

struct ToolkitRelease : Provenance {
  Version cuda;         // "12.4.0", "9.0.76"
  std::string release;  // "12.4 GA", "12.4 Update 1"
  std::string kind;     // "ga", "update", "rc"
  OsDriver linux_driver;
  OsDriver windows_driver;
  const OsDriver& for_os(std::string_view os) const {
    return os == "windows" ? windows_driver : linux_driver;
  }
};

struct ErrorRef {
  std::string api;
  long code = 0;
};

struct MvcLimit : Provenance {
  std::string id;
  std::string text;
  std::vector<ErrorRef> errors;
};

struct MvcException {
  Version cuda;  // a minor ("11.0") whose applications need less than the major's floor
  std::optional<Version> linux_min;
  std::optional<Version> windows_min;
  std::string note;
};

struct MinorVersionCompat : Provenance {
  long cuda_major = 0;
  long min_branch = 0;
  std::optional<Version> linux_min;
  std::optional<Version> windows_min;
  Confidence windows_confidence = Confidence::kConfirmed;
  std::optional<long>
      upper_branch;  // drivers of this branch and newer run the major by backward compatibility
  std::vector<MvcException> exceptions;
  std::vector<MvcLimit> limits;  // the same limits for every major
  // The minimum driver on `os` for an application built with `cuda` of this major.
  std::optional<Version> min_for(std::string_view os, const Version& cuda) const;
};

// What `cudiag kb driver-for` prints and what the rules compare a driver with.
struct DriverRequirement {
  const ToolkitRelease* release = nullptr;  // the row matched
  std::string os;
  std::optional<Version> full_min;
  std::string full_min_from;
  Confidence full_confidence = Confidence::kConfirmed;
  std::optional<Version> bundled;
  const MinorVersionCompat* mvc = nullptr;  // nullptr: no minor-version compatibility (CUDA <= 10.x)
  std::optional<Version> mvc_min;
  std::vector<Source> sources;  // the release row's, then the MVC entry's
};

struct DriverBranch : Provenance {
  long branch = 0;
  Version cuda;         // what cuDriverGetVersion reports
  std::string support;  // e.g. "Long Term Support Branch, end of life August 2028"
};

struct BranchMatch {
  const DriverBranch* branch = nullptr;
  bool exact = false;  // false: the driver's branch is not listed; this is the nearest older one
};

struct ArchVariant : Provenance {
  std::string sm;      // "sm_90a"
  std::string suffix;  // "a" or "f"
  std::optional<Version> first_cuda;
  std::optional<Version> min_ptx_isa;
  std::vector<Version> runs_on;  // family members ('f'), where known
  std::string carries_forward;
};

struct Arch : Provenance {
  Version cc;           // "9.0"
  std::string sm;       // "sm_90"
  std::string name;     // "Hopper"
  std::string segment;  // "datacenter", "consumer/workstation", ...
  std::vector<std::string> examples;
  std::optional<Version> first_cuda;          // first toolkit that builds SASS for it
  std::optional<Version> first_cuda_at_most;  // when only an upper bound is known
  std::optional<Version> last_cuda;           // none: still targeted
  std::optional<long> last_driver_branch;     // none: still supported
  std::optional<Version> min_ptx_isa;
  std::string carries_forward;  // the baseline rule
  std::vector<ArchVariant> variants;
  const ArchVariant* variant(std::string_view suffix) const;
};

struct ArchMatch {
  const Arch* arch = nullptr;
  const ArchVariant* variant = nullptr;  // nullptr: the baseline target
};

struct PtxIsa : Provenance {
  Version cuda;
  Version isa;
  bool toolkit_released = true;  // false for "12.7", a driver-only CUDA version
};

// The newest host compilers one CUDA release's nvcc accepts (crt/host_config.h);
// a row holds from its release until the next row's.
struct HostCompilers : Provenance {
  Version cuda;
  long gcc_max = 0;
  std::optional<long> clang_max;
};

struct Gpu : Provenance {
  unsigned pci_id = 0;   // device id, vendor 0x10de
  std::string name;      // "GeForce RTX 4090"
  std::string pci_name;  // the pci.ids text, "AD102 [GeForce RTX 4090]"
  std::string chip;      // "AD102"
  Version cc;
  std::string segment;
};

struct CompatGpuClass : Provenance {
  std::string id;
  std::string text;
};

struct CompatRelease : Provenance {
  Version compat_driver;  // the libcuda in the package, "575.57.08"
  Version cuda;
  std::string package;
  std::vector<long> host_branches;
  std::vector<long> device_field;  // the ELF note's "device" list (meaning unconfirmed)
  bool supports_host_branch(long branch) const;
};

struct ImageBranches : Provenance {
  Version first_image;
  Version last_image;
  std::vector<long> branches;  // besides cuda>=X.Y, the driver branches NVIDIA_REQUIRE_CUDA accepts
};

struct CompatRule : Provenance {
  std::string id;
  std::string text;
  std::vector<ErrorRef> errors;
};

struct ForwardCompat {
  Version introduced_in;
  std::string os;
  std::string package;
  std::string location;
  std::vector<CompatGpuClass> gpu_classes;
  std::vector<CompatRelease> releases;
  std::vector<ImageBranches> image_branches;
  std::vector<CompatRule> rules;
  const CompatRelease* release_for(const Version& compat_driver) const;
  const ImageBranches* image_branches_for(const Version& image_cuda) const;
};

struct Library : Provenance {
  std::string library;  // "cudart", "cudnn", ...
  long cuda_major = 0;
  std::vector<std::string> linux_sonames;
  std::vector<std::string> windows_dlls;
};

struct VersionEncoding : Provenance {
  std::string library;
  std::string applies_to;
  std::string formula;
  long code_min = 0;
  std::optional<long> code_max;
  std::vector<long> weights;
  bool covers(long code) const { return code >= code_min && (!code_max || code <= *code_max); }
  Version decode(long code) const;
};

// One table as loaded, for `cudiag kb tables`.
struct TableInfo {
  std::string name;
  std::string file;
  std::string description;
  std::size_t entries = 0;
  std::vector<Source> sources;
};

// The APIs whose error codes data/kb/error_codes.json lists: the prefix every name of an API's column
// starts with (a name in the wrong column is a typo), how a reader calls the API and the type its
// header gives the codes. One table (kb/error_apis.cpp) for the loader, explain's notes and `cudiag kb
// error`.
struct ErrorApi {
  std::string_view api;     // error_codes.json's "api": "driver", "cublas", ...
  std::string_view prefix;  // "CUDA_", "CUBLAS_STATUS_"
  std::string_view label;   // "driver API", "cuBLAS"
  std::string_view type;    // "CUresult", "cublasStatus_t"
};

// nullptr for an API error_codes.json does not allow.
const ErrorApi* error_api(std::string_view api);

// "driver, runtime, nvml, ...": the allowed names, for error messages.
std::string_view error_api_names();

}  // namespace cudiag::kb
