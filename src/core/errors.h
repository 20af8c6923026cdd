#pragma once
// Errors that end a command. InputError is the user's input being wrong
// (exit 2); anything else that escapes is an internal error (exit 3).
#include <stdexcept>
#include <string>

namespace cudiag {

enum ExitCode : int {
  kExitOk = 0,
  kExitErrorFinding = 1,
  kExitBadInput = 2,
  kExitInternal = 3,
};

// A message of the form "<input>: <what was wrong>", printed as one line.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace cudiag
