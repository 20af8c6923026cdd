#!/usr/bin/env python3
"""scripts/score_explain_set.py, the scorer of a new out-of-sample set (docs/collecting-failures.md), on a
stored set with the real binary: its counts agree with the per-case results it writes, the set's measured
floor holds, and a malformed set file is one line on stderr with exit code 2."""
import json
import os
import re
import subprocess
import sys
import tempfile

source, binary = sys.argv[1], sys.argv[2]
script = os.path.join(source, "scripts", "score_explain_set.py")
cases = os.path.join(source, "tests", "unit", "explain", "heldout98_cases.json")

with tempfile.TemporaryDirectory() as tmp:
    results_path = os.path.join(tmp, "results.json")
    run = subprocess.run([sys.executable, script, binary, cases, "--json", results_path],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    first = run.stdout.splitlines()[0]
    m = re.match(r"(\d+) cases: right layer (\d+) \(.*\), right layer and remedy (\d+) ", first)
    assert m, first
    results = json.load(open(results_path))
    n, layer, right = (int(g) for g in m.groups())
    assert n == len(results) == len(json.load(open(cases))["cases"]), (n, len(results))
    assert layer == sum(r["right_layer"] for r in results)
    assert right == sum(r["right"] for r in results)
    # The floor kPastedSets keeps for #98 (explain_heldout_test.cpp).
    assert layer >= 8, first

    bad = os.path.join(tmp, "bad.json")
    open(bad, "w").write('{"cases": [{"text": "x"}')
    run = subprocess.run([sys.executable, script, binary, bad], capture_output=True, text=True)
    assert run.returncode == 2 and run.stdout == "", (run.returncode, run.stdout)
    assert len(run.stderr.strip().splitlines()) == 1 and bad in run.stderr, run.stderr
    open(bad, "w").write('{"cases": [{"text": "x"}]}')
    run = subprocess.run([sys.executable, script, binary, bad], capture_output=True, text=True)
    assert run.returncode == 2 and "case 0 has no source" in run.stderr, run.stderr
print("score_explain_set: ok")
