#pragma once
// What every probe gets: the machine (its filesystem, its environment and the
// command's options, machine/machine.h), the library search over it, and the
// settings for child processes.
#include <string>

#include "core/answer_cache.h"
#include "machine/library_search.h"
#include "machine/machine.h"

namespace cudiag::probes {

struct ProbeContext {
  const machine::Machine& machine;  // root, env, options (child_timeout)
  const machine::LibrarySearch& search;
  std::string self_exe;            // cudiag itself, re-executed for child probes
  AnswerCache* answers = nullptr;  // remembered library-version answers; null: none
};

}  // namespace cudiag::probes
