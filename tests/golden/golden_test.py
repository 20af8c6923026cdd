#!/usr/bin/env python3
"""Golden outputs of the human and CI formats (text, md, html, junit, github)
on the fixture machines and reports, so a refactor shows every changed
character, not just the substrings the renderer tests look for.

Each case is a report made the way a user makes one — `cudiag --root TREE
report --format json` for each tree in tests/fixtures/machines and the
frameworks fixture, the saved reports in tests/fixtures/reports, and the
kernel-test scenario (a `check --deep` on a machine without a GPU) — with
what differs from run to run pinned (collection time, cudiag's version and
commit, timings, the checkout's path); then `cudiag analyze --format F` of it
is compared with tests/golden/<case>.<F>.

  tests/golden/golden_test.py BINARY

After an intended change of output, regenerate every file and review the diff:

  CUDIAG_UPDATE_GOLDEN=1 tests/golden/golden_test.py build/src/cudiag
  git diff tests/golden/
"""
import difflib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent
FIXTURES = ROOT / "tests" / "fixtures"
FORMATS = {"text": "txt", "md": "md", "html": "html", "junit": "xml", "github": "github.txt"}
ENV = dict(os.environ, CUDIAG_CACHE_DIR="", NO_COLOR="1", TZ="UTC")


def run(binary, args, stdin=None):
    p = subprocess.run([binary, *args], input=stdin, capture_output=True, text=True, env=ENV, timeout=120)
    if p.returncode not in (0, 1):
        raise SystemExit(f"cudiag {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def pinned(report_text, tree=None):
    """The report with what changes between runs and checkouts fixed."""
    if tree is not None:
        report_text = report_text.replace(str(tree), f"/fixtures/{tree.name}")
    report = json.loads(report_text)
    report["collected_at"] = "2026-01-01T00:00:00Z"
    report["tool"] = {"name": "cudiag", "version": "golden", "git_commit": "golden"}
    report.pop("timings", None)
    return report


def cases(binary):
    trees = sorted((FIXTURES / "machines").iterdir()) + [FIXTURES / "frameworks" / "machine"]
    for tree in trees:
        name = "frameworks" if tree.name == "machine" else tree.name
        yield f"machine-{name}", pinned(run(binary, ["--root", str(tree), "report", "--format", "json"]), tree)
    for saved in sorted((FIXTURES / "reports").glob("*.json")):
        yield f"report-{saved.stem}", pinned(saved.read_text())
    scenario = json.loads((ROOT / "tests" / "scenarios" / "kernel-test-cuinit-no-device.json").read_text())
    report = {"schema": "cudiag.report/1"}
    report.update(scenario["report"])
    yield "scenario-kernel-test-cuinit-no-device", pinned(json.dumps(report))


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    binary = sys.argv[1]
    update = os.environ.get("CUDIAG_UPDATE_GOLDEN") == "1"
    changed, count = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, report in cases(binary):
            path = Path(tmp) / f"{name}.json"
            path.write_text(json.dumps(report))
            for fmt, ext in FORMATS.items():
                count += 1
                got = run(binary, ["analyze", "--format", fmt, str(path)])
                golden = GOLDEN / f"{name}.{ext}"
                want = golden.read_text() if golden.exists() else None
                if got == want:
                    continue
                if update:
                    golden.write_text(got)
                    changed.append(golden.name)
                    continue
                changed.append(golden.name)
                sys.stdout.writelines(difflib.unified_diff((want or "").splitlines(True), got.splitlines(True),
                                                           f"golden/{golden.name}", f"now/{golden.name}", n=2))
    if update:
        print(f"{count} outputs, {len(changed)} rewritten: {' '.join(changed) or '-'}")
        return 0
    print(f"{count} outputs, {len(changed)} differ from tests/golden/"
          + (" (intended? CUDIAG_UPDATE_GOLDEN=1 tests/golden/golden_test.py BINARY rewrites them)" if changed else ""))
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
