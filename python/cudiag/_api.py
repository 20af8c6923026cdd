"""The Python API: each function runs the binary once and parses its JSON.

Keyword options map to the CLI's flags, so the CLI stays the one definition of
what cudiag can do (`cudiag COMMAND --help` lists them):
  name_with_underscores=value -> --name-with-underscores value
  flag=True                   -> --flag          (False or None: left out)
  option=[a, b]               -> --option a --option b
  assume={"driver": "535"}    -> --assume driver=535
The global options (root, timeout, kb, no_color) go before the command.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from ._binary import binary_path

OptionValue = Union[None, bool, int, float, str, Sequence[Any], Mapping[str, Any]]

_GLOBAL_OPTIONS = ("root", "timeout", "kb", "no_color")
_EXIT_BAD_INPUT = 2


class CudiagError(RuntimeError):
    """The CLI refused its input (exit 2) or failed (exit 3), or printed no JSON.

    str(error) is the CLI's own message; exit_code, stderr and argv say more.
    """

    def __init__(self, message: str, exit_code: int, stderr: str, argv: List[str]) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.stderr = stderr
        self.argv = argv


@dataclass(frozen=True)
class CheckResult:
    """What `cudiag check` found: its exit code and the report behind it."""

    exit_code: int  # 0 no error finding, 1 at least one error finding
    findings: List[Dict[str, Any]]
    report: Dict[str, Any] = field(repr=False)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @property
    def first_failing_layer(self) -> Optional[str]:
        layer = self.report.get("first_failing_layer")
        return layer if isinstance(layer, str) else None


def _flag(name: str) -> str:
    if not name.isidentifier() or name.startswith("_"):
        raise TypeError(f"{name!r} is not an option name")
    return "--" + name.replace("_", "-")


def options_to_argv(options: Mapping[str, OptionValue]) -> List[str]:
    """The CLI arguments for keyword options (see the module docstring)."""
    argv: List[str] = []
    for name, value in options.items():
        flag = _flag(name)
        if value is None or value is False:
            continue
        if value is True:
            argv.append(flag)
        elif isinstance(value, Mapping):
            for key, item in value.items():
                argv += [flag, f"{key}={item}"]
        elif isinstance(value, (list, tuple)):
            for item in value:
                argv += [flag, str(item)]
        elif isinstance(value, (str, int, float)):
            argv += [flag, str(value)]
        else:
            raise TypeError(f"{name}: cannot pass a {type(value).__name__} to the CLI")
    return argv


def _argv(command: str, options: Dict[str, OptionValue], fixed: Sequence[str]) -> List[str]:
    global_opts = {k: options.pop(k) for k in _GLOBAL_OPTIONS if k in options}
    return [binary_path(), *options_to_argv(global_opts), command, *fixed, *options_to_argv(options)]


def _run_json(
    command: str,
    options: Dict[str, OptionValue],
    fixed: Sequence[str] = (),
    stdin: Optional[str] = None,
    wall_timeout: Optional[float] = None,
) -> "tuple[int, Dict[str, Any]]":
    argv = _argv(command, options, fixed)
    proc = subprocess.run(
        argv,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=wall_timeout,
    )
    stderr = proc.stderr.strip()
    if proc.returncode >= _EXIT_BAD_INPUT or proc.returncode < 0:
        message = stderr or f"cudiag {command} exited with {proc.returncode}"
        raise CudiagError(message, proc.returncode, proc.stderr, argv)
    try:
        data = json.loads(proc.stdout)
    except ValueError as e:
        raise CudiagError(f"cudiag {command}: output is not JSON ({e})", proc.returncode, proc.stderr, argv) from e
    if not isinstance(data, dict):
        raise CudiagError(f"cudiag {command}: output is not a JSON object", proc.returncode, proc.stderr, argv)
    return proc.returncode, data


def report(*, wall_timeout: Optional[float] = None, **options: OptionValue) -> Dict[str, Any]:
    """The whole report of this machine (schema/report.schema.json) as a dict.

    `report(binaries=True, assume={"gpu": "sm_90"}, python=["/venv/bin/python"])`
    runs `cudiag report --format json --binaries --assume gpu=sm_90 --python …`.
    """
    _, data = _run_json("report", {**options, "format": "json"}, wall_timeout=wall_timeout)
    return data


def check(*, wall_timeout: Optional[float] = None, **options: OptionValue) -> CheckResult:
    """`cudiag check`: exit code 0 or 1 and the findings (an exception otherwise).

    `check(require=["driver>=550"], deep=True)` gates like the CLI does.
    """
    code, data = _run_json("check", {**options, "format": "json"}, wall_timeout=wall_timeout)
    findings = data.get("findings")
    return CheckResult(exit_code=code, findings=list(findings) if isinstance(findings, list) else [], report=data)


def explain(text: Optional[str] = None, *, wall_timeout: Optional[float] = None, **options: OptionValue) -> Dict[str, Any]:
    """What an error message (or every known message in a log text) means here.

    The text goes to the binary's standard input, so it may be a whole log.
    `explain(msg, no_collect=True)` explains it without looking at this machine;
    `explain(file="job.log")` scans a log file instead.
    """
    fixed = ["-"] if text is not None else []
    _, data = _run_json("explain", {**options, "format": "json"}, fixed=fixed, stdin=text, wall_timeout=wall_timeout)
    return data
