#pragma once
// The environment of the machine being diagnosed. It is read from
// /proc/self/environ through the FsRoot, so a fixture tree presents its own
// environment the same way it presents its own /proc. Values are only ever
// reported for names on the allowlist (environment_allowlist()).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/env_allowlist.h"  // is_allowlisted_variable(): what read() keeps
#include "core/fsroot.h"

namespace cudiag::machine {

class Environment {
 public:
  static Environment read(const FsRoot& root);
  static Environment from_map(std::map<std::string, std::string> vars);

  std::optional<std::string> get(std::string_view name) const;
  bool has(std::string_view name) const { return get(name).has_value(); }
  // Colon-separated list variables (PATH, LD_LIBRARY_PATH), empty entries dropped.
  std::vector<std::string> list(std::string_view name) const;
  const std::map<std::string, std::string, std::less<>>& all() const { return vars_; }
  const std::string& read_error() const { return error_; }

 private:
  std::map<std::string, std::string, std::less<>> vars_;
  std::string error_;
};

}  // namespace cudiag::machine
