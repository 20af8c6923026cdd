#!/usr/bin/python3
"""cudiag explain vs. grep over the same log, side by side in one run.

The competitor is the floor of what explain does: grep -F -i with every anchor
of data/kb/error_signatures.json finds the lines worth a look, nothing more (no
regex, no explanation, no verdict). Two logs of LINES lines each, written to a
temporary directory:

  messages  real error lines: every corpus text in tests/unit/explain/, repeated
  ordinary  a training log (progress, loss, loading lines) with one real error
            line in fifty
  one issue one pasted issue body (the first of tests/unit/explain/pasted_cases.json):
            what a user pastes, where explain's fixed cost (loading its tables)
            is most of the time

Prints the median wall time of each command and its ratio to grep. Pass a
second cudiag binary (an older build) to see both side by side.

usage: bench/explain_speed.py [CUDIAG_BINARY [OTHER_BINARY]] [--lines N] [--runs N]
"""
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

ORDINARY = [
    "2026-12-05 10:00:00 INFO loading model weights from /data/model.safetensors on cuda:0",
    "[rank0]: step {i} loss 0.{i:04d} lr 3e-4 gpu mem 12.3GB",
    "epoch 1/10:  42%|████▏     | {i}/500 [00:10<00:12, 48.1it/s]",
    "INFO saving checkpoint to /data/ckpt/step_{i}.pt",
    "WARNING: the tokenizer has no pad token; using eos",
]


def corpus_lines():
    lines = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/unit/explain/*cases.json"))):
        with open(path, encoding="utf-8") as f:
            for case in json.load(f)["cases"]:
                lines.extend(l for l in case["text"].split("\n") if l.strip())
    return lines


def write_logs(tmp, n):
    real = corpus_lines()
    messages = [real[i % len(real)] for i in range(n)]
    ordinary = [real[i % len(real)] if i % 50 == 0 else ORDINARY[i % len(ORDINARY)].format(i=i) for i in range(n)]
    paths = {}
    for name, lines in (("messages", messages), ("ordinary", ordinary)):
        paths[name] = os.path.join(tmp, name + ".log")
        with open(paths[name], "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    with open(os.path.join(ROOT, "tests/unit/explain/pasted_cases.json"), encoding="utf-8") as f:
        issue = json.load(f)["cases"][0]["text"]
    paths["one issue"] = os.path.join(tmp, "issue.txt")
    with open(paths["one issue"], "w", encoding="utf-8") as f:
        f.write(issue + "\n")
    anchors = os.path.join(tmp, "anchors.txt")
    with open(os.path.join(ROOT, "data/kb/error_signatures.json"), encoding="utf-8") as f:
        words = sorted({a for e in json.load(f)["entries"] for a in e["anchors"]})
    with open(anchors, "w", encoding="utf-8") as f:
        f.write("\n".join(words) + "\n")
    return paths, anchors


def median_time(argv, runs):
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    args = sys.argv[1:]
    lines, runs = 20000, 3
    for flag in ("--lines", "--runs"):
        if flag in args:
            i = args.index(flag)
            value = int(args[i + 1])
            del args[i : i + 2]
            lines, runs = (value, runs) if flag == "--lines" else (lines, value)
    binaries = args or [os.path.join(ROOT, "build/src/cudiag")]
    with tempfile.TemporaryDirectory() as tmp:
        paths, anchors = write_logs(tmp, lines)
        print(f"{lines} lines per log, median of {runs} runs")
        for name, log in paths.items():
            grep = median_time(["grep", "-c", "-i", "-F", "-f", anchors, log], runs)
            print(f"\n{name}:")
            print(f"  {'grep -F -i (anchors only)':44} {grep:8.3f} s   1.0x")
            first = None
            for exe in binaries:
                t = median_time([exe, "explain", "--file", log, "--no-collect", "--format", "json"], runs)
                first = first or t
                vs_first = "" if t == first else f"  ({t / first:.2f}x the first binary)"
                print(f"  {('cudiag explain ' + exe)[-44:]:44} {t:8.3f} s  {t / grep:5.1f}x{vs_first}")


if __name__ == "__main__":
    main()
