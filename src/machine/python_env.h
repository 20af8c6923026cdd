#pragma once
// The Python environments a user of this machine means, found without running
// any interpreter: `--python PATH`, the active VIRTUAL_ENV and CONDA_PREFIX,
// the first python3 on PATH, the system interpreters, and every conda
// environment under a conda root. Each one's import path (its site-packages
// and dist-packages directories, in the order Python searches them) is derived
// from the interpreter's layout: pyvenv.cfg for a venv, conda-meta/ for conda,
// Debian's /usr/lib/python3/dist-packages for the system Python.
#include <string>
#include <vector>

#include "core/fsroot.h"
#include "machine/environment.h"

namespace cudiag::machine {

struct PythonEnv {
  std::string prefix;                      // sys.prefix: the venv, the conda env, /usr
  std::string kind;                        // "venv", "conda", "system"
  std::string interpreter;                 // bin/python3 under the prefix, "" when none was seen
  std::string python_version;              // "3.11", "" when the layout does not say
  std::vector<std::string> found_via;      // "--python /x/bin/python", "VIRTUAL_ENV", "python3 on PATH", ...
  std::vector<std::string> site_packages;  // existing directories, in import order
};

struct PythonEnvQuery {
  std::vector<std::string> pythons;  // --python: interpreters or prefixes, in the order given
};

std::vector<PythonEnv> find_python_envs(const FsRoot& root, const Environment& env,
                                        const PythonEnvQuery& query);

// "python3.11" -> "3.11"; "" for "python3" or anything else.
std::string python_version_from_name(const std::string& file_name);

}  // namespace cudiag::machine
