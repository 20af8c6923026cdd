"""cudiag: which layer of this machine's NVIDIA GPU stack is broken, and what to change.

A thin, dependency-free wrapper over the native `cudiag` binary that this
package's wheel installs on PATH:

    import cudiag
    r = cudiag.report()                  # dict: host, kernel_driver, nvml, ... findings
    c = cudiag.check(require=["driver>=550"])
    c.exit_code, c.findings
    cudiag.explain("CUDA driver version is insufficient for CUDA runtime version")
    cudiag.binary_path()

`python -m cudiag ARGS` runs the binary itself.
"""

from __future__ import annotations

from ._api import CheckResult, CudiagError, check, explain, options_to_argv, report
from ._binary import binary_path

try:
    from importlib.metadata import PackageNotFoundError, version

    __version__ = version("cudiag")
except PackageNotFoundError:  # a source checkout on PYTHONPATH, not installed
    __version__ = "0+unknown"

__all__ = ["__version__", "CheckResult", "CudiagError", "binary_path", "check", "explain", "options_to_argv", "report"]
