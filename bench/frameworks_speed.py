#!/usr/bin/python3
"""The frameworks layer's cost, side by side with importing torch.

Runs `cudiag report --format json --no-library-calls` with and without
`--no-frameworks`, N times each interleaved after a warm-up (warm page cache
for both), and `python3 -c "import torch"` (the interpreter that has torch,
default /usr/bin/python3), and prints the median wall times, the difference
the frameworks layer makes, the layer's own timings.frameworks_ms from the
report, and the ratio to importing torch.

Goal (issue 5): static detection adds < 10 ms to a report (exit 1 when the
median wall-time difference is over it). The fatbin headers of
libtorch_cuda.so are remembered per file identity (the answer cache), so the
medians are what every run after the first costs; the layer's time with
--no-cache (a torch never seen before) is printed beside them, and the load
average before and after (the figures mean little on a busy machine).

usage: bench/frameworks_speed.py [CUDIAG_BINARY] [--runs N] [--python PY] [--extra-python PATH ...]

With real CUDA torch and its nvidia wheels, the slow tier's venv (tests/slow/run.sh):
  V=~/.cache/cudiag-test-wheels/venv-cuda12/bin/python3
  bench/frameworks_speed.py build/src/cudiag --python $V --extra-python $V
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def default_binary():
    for d in ("build-h5", "build"):
        p = os.path.join(HERE, "..", d, "src", "cudiag")
        if os.path.exists(p):
            return os.path.abspath(p)
    return "cudiag"


CPU = []  # user+sys CPU ms of each timed command and its children (rusage), beside the wall time


def timed(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    wall = (time.perf_counter() - t) * 1000.0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000.0)
    return wall, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cudiag", nargs="?", default=default_binary())
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--python", default="/usr/bin/python3", help="interpreter that imports torch")
    ap.add_argument("--extra-python", action="append", default=[], help="passed to cudiag as --python")
    args = ap.parse_args()

    base = [args.cudiag, "report", "--format", "json", "--no-library-calls"]
    for p in args.extra_python:
        base += ["--python", p]
    with_fw, without_fw, layer_ms, torch_ms, uncached_ms = [], [], [], [], []
    load_before = os.getloadavg()
    cpu_with, cpu_without = [], []
    timed(base)
    timed(base + ["--no-frameworks"])
    has_torch = subprocess.run([args.python, "-c", "import torch"], stderr=subprocess.DEVNULL).returncode == 0
    for _ in range(args.runs):
        ms, out = timed(base)
        with_fw.append(ms)
        cpu_with.append(CPU[-1])
        try:
            report = json.loads(out.stdout)
            layer_ms.append(report["timings"]["frameworks_ms"])
            envs = report["frameworks"]["environments"]
        except (ValueError, KeyError):
            print("cudiag did not print a report with a frameworks layer", file=sys.stderr)
            return 1
        ms, _ = timed(base + ["--no-frameworks"])
        without_fw.append(ms)
        cpu_without.append(CPU[-1])
        _, out = timed(base + ["--no-cache"])
        uncached_ms.append(json.loads(out.stdout)["timings"]["frameworks_ms"])
        if has_torch:
            ms, _ = timed([args.python, "-c", "import torch"])
            torch_ms.append(ms)

    med = statistics.median
    n_fw = sum(len(e["frameworks"]) for e in envs)
    print(f"environments found: {len(envs)}, frameworks: {n_fw}, nvidia wheels: {sum(len(e['nvidia_wheels']) for e in envs)}")
    print(f"cudiag report (with frameworks)     median {med(with_fw):8.1f} ms")
    print(f"cudiag report --no-frameworks       median {med(without_fw):8.1f} ms")
    print(f"difference                          median {med(with_fw) - med(without_fw):8.1f} ms")
    print(f"CPU time (user+sys, with children)  median {med(cpu_with):8.1f} ms with, {med(cpu_without):.1f} ms without, "
          f"difference {med(cpu_with) - med(cpu_without):.1f} ms")
    print(f"timings.frameworks_ms (in-process)  median {med(layer_ms):8.2f} ms   max {max(layer_ms):.2f} ms   goal < 10 ms")
    print(f"  the same with --no-cache            median {med(uncached_ms):8.2f} ms   (fatbin headers read again)")
    if torch_ms:
        print(f"{args.python} -c 'import torch'   median {med(torch_ms):8.1f} ms")
        print(f"ratio import torch / frameworks layer: {med(torch_ms) / max(med(layer_ms), 0.001):.0f}x")
    else:
        print(f"{args.python} cannot import torch: no comparison")
    load_after = os.getloadavg()
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} (1 min), {os.cpu_count()} CPUs")
    # The goal is what the layer adds to a report. The in-process time is a
    # diagnostic: the probe runs while the driver children start, and on a
    # 2-core machine it waits for a CPU with them.
    added = med(with_fw) - med(without_fw)
    print(f"adds {added:.1f} ms wall, {med(cpu_with) - med(cpu_without):.1f} ms CPU to a report: "
          f"{'within' if added < 10.0 else 'over'} the 10 ms goal")
    return 0 if added < 10.0 else 1


if __name__ == "__main__":
    sys.exit(main())
