#pragma once
// What every probe gets: the machine's filesystem, its environment, the
// library search over it, and the settings for child processes.
#include <chrono>
#include <string>

#include "core/answer_cache.h"
#include "core/fsroot.h"
#include "machine/environment.h"
#include "machine/library_search.h"

namespace cudiag::probes {

struct ProbeContext {
  const FsRoot& root;
  const machine::Environment& env;
  const machine::LibrarySearch& search;
  std::chrono::milliseconds child_timeout{10000};
  std::string self_exe;            // cudiag itself, re-executed for child probes
  AnswerCache* answers = nullptr;  // remembered library-version answers; null: none
};

}  // namespace cudiag::probes
