#pragma once
// The lock file (`cudiag lock`, `cudiag verify`): the known-good stack as a
// small TOML file people can read and edit. Every value is a version or a
// range (workflow/version_spec.h), or a list of them when the machine has
// several; a key that is deleted is not checked; `[]` pins "none of these".
//
//   schema = "cudiag.lock/1"
//   [driver]        version, cuda
//   [gpus]          count, compute_capabilities, names
//   [cuda_runtime]  instances = [{ version, path }], toolkits
//   [libraries]     cudnn, cublas, nccl, nvrtc, ...
//   [frameworks.torch]  version, cuda, cudnn      (when the report has frameworks)
//   [kernel_test]   passed                        (when the kernel test ran)
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workflow/stack.h"
#include "workflow/version_spec.h"

namespace cudiag::workflow {

inline constexpr std::string_view kLockSchema = "cudiag.lock/1";

struct LockEntry {
  std::string key;  // a stack key: "driver", "cudnn", "torch.cuda", "gpu.name", "kernel_test"
  ValueKind kind = ValueKind::kVersion;
  std::vector<VersionSpec> specs;  // kVersion
  std::vector<std::string> texts;  // kText (names) and kBool ("passed" / "failed")
  std::string spelled;             // how the file names it: "driver.version"
  long line = 0;
};

struct LockRuntime {
  VersionSpec spec;
  std::string path;  // "": any location
  long line = 0;
};

struct LockFile {
  std::vector<LockEntry> entries;
  bool pins_runtimes = false;  // [cuda_runtime] instances is present (possibly empty)
  std::vector<LockRuntime> runtimes;
};

struct LockWriteOptions {
  bool loose = false;   // ranges instead of exact pins: same driver branch, same major.minor
  std::string comment;  // first line(s), e.g. "written from host X at T"
};

std::string write_lock(const Stack& stack, const LockWriteOptions& options);

// Throws InputError("<name>:<line>: <key>: <what>") for bad TOML, an unknown
// key, a value that is not a version string or an invalid range.
LockFile parse_lock(std::string_view text, const std::string& name);

}  // namespace cudiag::workflow
