#pragma once
// What collection is asked to do: the one options struct from the command line
// (cli/report_pipeline.cpp fills it) to every probe (probes/probe_registry.h
// hands it to each). Here, in core, so probes read it without depending on the
// code that runs them (report/).
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace cudiag {

// Maps an API's numeric result to its name ("driver", 100 -> "CUDA_ERROR_NO_DEVICE").
using ErrorNamer = std::function<std::string(std::string_view api, long code)>;

struct CollectOptions {
  std::string root = "/";
  std::chrono::milliseconds child_timeout{10000};
  bool library_calls = true;  // false: versions from file names only, no child per library
  // true (--confirm-versions, check --deep): ask each library's own function even where the
  // NVIDIA wheel that installed the file already says its version.
  bool confirm_library_versions = false;
  ErrorNamer error_name;
  std::string image_digest;  // --image-digest: the container image's digest, which only the caller knows
  std::vector<std::string> pythons;  // --python: extra interpreters or environments for the frameworks layer
  bool frameworks = true;            // false (--no-frameworks): skip the frameworks layer
  bool binaries = false;  // --binaries / check --deep: fatbin architectures of each library (`binaries` key)
  // Where library-version answers are remembered (core/answer_cache.h); "" remembers nothing.
  std::string answer_cache_dir;
  // Work of the caller's that can run while the children do (parsing the knowledge base).
  std::function<void()> while_children_run;
};

}  // namespace cudiag
