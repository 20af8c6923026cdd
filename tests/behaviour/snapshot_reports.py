#!/usr/bin/env python3
"""Behaviour snapshot: the JSON report of every fixture machine and scenario.

A refactor must not change what cudiag concludes. Before it, save the reports:

    tests/behaviour/snapshot_reports.py build/cudiag save /tmp/before

after it, compare (exit 1 and a unified diff per changed case); a top-level key
the change adds on purpose can be left out of the comparison:

    tests/behaviour/snapshot_reports.py build/cudiag compare /tmp/before [--ignore derived]

Cases: `report --format json` of each tree in tests/fixtures/machines and the
frameworks fixture; `check --require` on one of them (a gate met, one not); `analyze --format json` of each saved report in
tests/fixtures/reports; each tests/scenarios/*.json as the scenario suite runs
it (its partial report and its --assume overlays, through `analyze`). What
changes from run to run (times, the collection time, the tool's build) is
dropped before saving, so the snapshot holds only what was concluded.
"""
import difflib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
SCENARIOS = ROOT / "tests" / "scenarios"

# Keys whose values differ between two runs of the same binary on the same input.
VOLATILE_TOP = {"collected_at", "timings", "tool"}
VOLATILE_ANY = {"ms", "total_ms", "elapsed_ms", "answered_at"}


def normalise(node):
    if isinstance(node, dict):
        return {k: normalise(v) for k, v in node.items() if k not in VOLATILE_ANY}
    if isinstance(node, list):
        return [normalise(v) for v in node]
    return node


def run(binary, args, stdin=None):
    env = dict(os.environ, CUDIAG_CACHE_DIR="", NO_COLOR="1")
    p = subprocess.run([binary, *args], input=stdin, capture_output=True, text=True, env=env, timeout=120)
    if p.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    report = json.loads(p.stdout)
    for k in VOLATILE_TOP:
        report.pop(k, None)
    return {"exit": p.returncode, "report": normalise(report)}


def cases(binary):
    for tree in sorted((FIXTURES / "machines").iterdir()):
        yield f"machine-{tree.name}", run(binary, ["--root", str(tree), "report", "--format", "json"])
    fw = FIXTURES / "frameworks" / "machine"
    yield "machine-frameworks", run(binary, ["--root", str(fw), "report", "--format", "json"])
    # check --require on a fixture: one gate met, one not (exit code and findings).
    dgx = str(FIXTURES / "machines" / "dgx-h100")
    for name, gate in (("met", "driver>=500"), ("unmet", "driver>=999")):
        yield f"require-{name}", run(binary, ["--root", dgx, "check", "--format", "json", "--require", gate])
    for saved in sorted((FIXTURES / "reports").glob("*.json")):
        yield f"report-{saved.stem}", run(binary, ["analyze", "--format", "json", str(saved)])
    for path in sorted(SCENARIOS.glob("*.json")):
        scenario = json.loads(path.read_text())
        report = {"schema": "cudiag.report/1"}
        report.update(scenario.get("report", {}))
        args = ["analyze", "--format", "json", "-"]
        for a in scenario.get("assume", []):
            args += ["--assume", a]
        yield f"scenario-{path.stem}", run(binary, args, stdin=json.dumps(report))


def main():
    if len(sys.argv) < 4 or sys.argv[2] not in ("save", "compare"):
        raise SystemExit(__doc__)
    binary, mode, folder = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    ignored = {sys.argv[i + 1] for i in range(4, len(sys.argv) - 1) if sys.argv[i] == "--ignore"}
    if mode == "save":
        folder.mkdir(parents=True, exist_ok=True)
        n = 0
        for name, got in cases(binary):
            (folder / f"{name}.json").write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
            n += 1
        print(f"saved {n} cases in {folder}")
        return 0
    changed = 0
    seen = set()
    for name, got in cases(binary):
        seen.add(name)
        before_path = folder / f"{name}.json"
        for key in ignored:
            got["report"].pop(key, None)
        now = json.dumps(got, indent=1, sort_keys=True) + "\n"
        before = before_path.read_text() if before_path.exists() else ""
        if before != now:
            changed += 1
            sys.stdout.writelines(difflib.unified_diff(before.splitlines(True), now.splitlines(True),
                                                       f"before/{name}", f"after/{name}", n=2))
    for gone in sorted(p.stem for p in folder.glob("*.json")):
        if gone not in seen:
            changed += 1
            print(f"case {gone} no longer exists")
    print(f"{len(seen)} cases, {changed} changed")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
