#!/usr/bin/env python3
"""Score corpus files of reported failures with a cudiag binary, as a new set is scored before it is read.

    scripts/score_explain_set.py build/src/cudiag set99_cases.json [more.json ...] [--json results.json]

Each case is {"text", "source", "expect_layer", "expect_remedy", ...} (docs/collecting-failures.md). A case is
right when `cudiag explain --file - --no-collect --format json` answers the expected layer (its `verdict`) and
the expected remedy word appears anywhere in that output, as tests/unit/explain/accuracy_scoring.h scores the
stored corpora. Prints right layer, right layer and remedy, per layer and per answer source (`verdict.from`).
"""
import argparse
import collections
import concurrent.futures
import json
import os
import signal
import subprocess
import sys


def fail(message):
    print(f"score_explain_set: {message}", file=sys.stderr)
    sys.exit(2)


def load(paths):
    cases = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            fail(f"{path}: {e}")
        listed = doc.get("cases") if isinstance(doc, dict) else doc
        if not isinstance(listed, list):
            fail(f"{path}: no list of cases")
        for i, case in enumerate(listed):
            missing = [k for k in ("text", "source", "expect_layer", "expect_remedy")
                       if not isinstance(case, dict) or not isinstance(case.get(k), str)]
            if missing:
                fail(f"{path}: case {i} has no {', '.join(missing)}")
            cases.append(dict(case, set=os.path.basename(path)))
    return cases


def score(binary, case):
    run = subprocess.run([binary, "explain", "--file", "-", "--no-collect", "--format", "json"],
                         input=case["text"].encode(), capture_output=True, timeout=120)
    out = run.stdout.decode(errors="replace")
    try:
        verdict = json.loads(out).get("verdict") or {}
    except json.JSONDecodeError:
        verdict = {}
    layer = verdict.get("layer", "")
    right_layer = layer == case["expect_layer"]
    return {"source": case["source"], "set": case["set"], "want": case["expect_layer"],
            "remedy": case["expect_remedy"], "layer": layer, "from": verdict.get("from", ""),
            "id": verdict.get("id", ""), "right_layer": right_layer,
            "right": right_layer and case["expect_remedy"].lower() in out.lower()}


def main():
    # A reader that stops early (| head -1) ends the summary quietly, not with a BrokenPipeError trace.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--json", help="write the per-case results here")
    args = parser.parse_args()
    cases = load(args.files)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda c: score(args.binary, c), cases))
    n = len(results)
    if n == 0:
        fail("no cases in " + ", ".join(args.files))
    # The results first: a reader that stops after the summary (| head -1) must not lose them.
    if args.json:
        tmp = args.json + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
        os.replace(tmp, args.json)
    right = sum(r["right"] for r in results)
    right_layer = sum(r["right_layer"] for r in results)
    print(f"{n} cases: right layer {right_layer} ({100 * right_layer / n:.1f} %), "
          f"right layer and remedy {right} ({100 * right / n:.1f} %)")
    for key, title in (("want", "expected layer"), ("from", "answered from")):
        groups = collections.defaultdict(list)
        for r in results:
            groups[r[key] or "(no answer)"].append(r)
        print(f"by {title}:")
        for name, rs in sorted(groups.items()):
            print(f"  {name:14} {sum(r['right'] for r in rs):3}/{len(rs):<3} right, "
                  f"{sum(r['right_layer'] for r in rs):3} right layer")


if __name__ == "__main__":
    main()
