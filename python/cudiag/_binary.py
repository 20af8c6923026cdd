"""Where the native `cudiag` executable is.

The wheel installs it as a script (`<name>.data/scripts/cudiag`), so pip puts it
in the environment's bin/ beside `python`, as ruff and uv do. The search order
follows ruff's `find_ruff_bin()`
(https://github.com/astral-sh/ruff/blob/main/python/ruff/_find_ruff.py) so that
venvs, `--user`, `--prefix` and `--target` installs all find it.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from typing import Iterator

_EXE = "cudiag" + (sysconfig.get_config_var("EXE") or "")


def _candidate_dirs() -> Iterator[str]:
    yield sysconfig.get_path("scripts")
    yield sysconfig.get_path("scripts", vars={"base": sys.base_prefix})
    here = os.path.dirname(os.path.abspath(__file__))
    # pip install --prefix P: P/lib/pythonX.Y/site-packages/cudiag -> P/bin
    yield os.path.normpath(os.path.join(here, "..", "..", "..", "..", "bin"))
    # pip install --target T: T/cudiag -> T/bin
    yield os.path.normpath(os.path.join(here, "..", "bin"))
    if sys.version_info >= (3, 10):
        user_scheme = sysconfig.get_preferred_scheme("user")
    else:  # pragma: no cover - 3.8/3.9
        user_scheme = "posix_user"
    yield sysconfig.get_path("scripts", scheme=user_scheme)


def binary_path() -> str:
    """The absolute path of the `cudiag` executable this package runs.

    Raises FileNotFoundError when the package was installed without its
    binary (for example copied without the wheel's scripts).
    """
    override = os.environ.get("CUDIAG_BINARY")
    if override:  # an explicit file, e.g. a build tree's binary
        if os.path.isfile(override) and os.access(override, os.X_OK):
            return os.path.abspath(override)
        raise FileNotFoundError(f"CUDIAG_BINARY={override}: not an executable file")
    seen = []
    for d in _candidate_dirs():
        if not d or d in seen:
            continue
        seen.append(d)
        path = os.path.join(d, _EXE)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(f"{_EXE}: not found in {os.pathsep.join(seen)} (reinstall the cudiag wheel)")
