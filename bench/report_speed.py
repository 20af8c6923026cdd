#!/usr/bin/python3
"""cudiag report vs. the tools people use today, side by side in one run.

Runs each command N times (interleaved, after one warm-up each) and prints the
median wall time and its ratio to the floor (a C program that only dlopens
libcuda + libnvidia-ml and calls cuDriverGetVersion, cuInit, nvmlInit_v2) and
to collect_env. Goals: the warm report within 1.3x the floor (issue 2), the
first run within 2.0x (issue 18), >= 30x faster than
`python3 -m torch.utils.collect_env`.

Three cudiag rows matter: the report as a user runs it a second time (the CUDA
libraries' version answers remembered for the unchanged files, a cache of its
own in a temporary directory, filled by the warm-up run); the first run on a
machine (`--no-cache`: versions from the NVIDIA wheels' install records where
they say it, the other libraries loaded in a child and asked); and the first
run asking every library itself (`--no-cache --confirm-versions`, what the
first run cost before the wheel records were read, and what check --deep does).

usage: bench/report_speed.py [CUDIAG_BINARY] [--runs N]
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def build_floor(tmp):
    exe = os.path.join(tmp, "floor")
    subprocess.run(["cc", "-O2", "-o", exe, os.path.join(HERE, "floor.c"), "-ldl"], check=True)
    return exe


def time_once(argv, env=None):
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
    return (time.perf_counter() - start) * 1000.0


def main():
    args = sys.argv[1:]
    runs = 15
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i : i + 2]
    cudiag = args[0] if args else os.path.join(HERE, "..", "build", "src", "cudiag")
    load_before = f"{os.getloadavg()[0]:.2f}"
    with tempfile.TemporaryDirectory() as tmp:
        floor = build_floor(tmp)
        cached = dict(os.environ, CUDIAG_CACHE_DIR=os.path.join(tmp, "answer-cache"))
        commands = {
            "floor (dlopen + 3 calls)": [floor],
            "cudiag report --format json": ([cudiag, "report", "--format", "json"], cached),
            "  first run (--no-cache)": [cudiag, "report", "--format", "json", "--no-cache"],
            "  first run, every library asked": [cudiag, "report", "--format", "json", "--no-cache",
                                                 "--confirm-versions"],
            "cudiag report --no-library-calls": [cudiag, "report", "--format", "json", "--no-library-calls"],
        }
        if shutil.which("nvidia-smi"):
            commands["nvidia-smi -q"] = ["nvidia-smi", "-q"]
        torch_ok = subprocess.run(["/usr/bin/python3", "-c", "import torch.utils.collect_env"],
                                  capture_output=True).returncode == 0
        if torch_ok:
            commands["python3 -m torch.utils.collect_env"] = ["/usr/bin/python3", "-m", "torch.utils.collect_env"]
        else:
            print("note: Debian's python3-torch is not installed; collect_env skipped (apt-get install python3-torch)")
        commands = {name: c if isinstance(c, tuple) else (c, None) for name, c in commands.items()}
        samples = {name: [] for name in commands}
        for argv, env in commands.values():
            time_once(argv, env)  # warm the page cache (and fill the answer cache)
        for _ in range(runs):
            for name, (argv, env) in commands.items():
                if name.startswith("python3 -m torch") and len(samples[name]) >= max(3, runs // 3):
                    continue  # slow; a few samples give a stable median
                samples[name].append(time_once(argv, env))
        medians = {name: statistics.median(v) for name, v in samples.items()}
        floor_ms = medians["floor (dlopen + 3 calls)"]
        collect_ms = medians.get("python3 -m torch.utils.collect_env")
        print(f"{'command':<40} {'median ms':>10} {'x floor':>8} {'collect_env / this':>19}")
        for name, ms in medians.items():
            vs_collect = f"{collect_ms / ms:>18.1f}x" if collect_ms else f"{'-':>19}"
            print(f"{name:<40} {ms:>10.1f} {ms / floor_ms:>7.2f}x {vs_collect}")
        warm = medians["cudiag report --format json"] / floor_ms
        first = medians["  first run (--no-cache)"] / floor_ms
        print(f"goals: warm {warm:.2f}x <= 1.3x {'met' if warm <= 1.3 else 'MISSED'}; "
              f"first run {first:.2f}x <= 2.0x {'met' if first <= 2.0 else 'MISSED'}")
        print(f"runs: {runs} (collect_env: {len(samples.get('python3 -m torch.utils.collect_env', []))}), "
              f"cores: {os.cpu_count()}, load average before/after: {load_before} / {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
