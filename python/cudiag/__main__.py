"""`python -m cudiag ARGS…` runs the native binary with the same arguments."""

from __future__ import annotations

import os
import sys

from ._binary import binary_path


def main() -> None:
    exe = binary_path()
    # exec, not a child: the exit code, signals and the terminal are the
    # binary's own, exactly as when `cudiag` is run from PATH.
    os.execv(exe, [exe, *sys.argv[1:]])


if __name__ == "__main__":
    main()
