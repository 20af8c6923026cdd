#!/usr/bin/python3
"""`cudiag test` vs. the floor, side by side in one run.

The floor (bench/kernel_test_floor.c) does only cuInit + primary context +
load of the same PTX + one launch + copy back + check, in one process.
`cudiag test --no-nvrtc --no-frameworks` does that in a child process with a
deadline, plus the SASS path and per-step timing. Goal (issue 5): <= 1.5x the
floor on a GPU. The full `cudiag test` (NVRTC, frameworks) is timed too, for
information: framework imports dominate it.

Without a GPU both stop at cuInit; the script says it needs a GPU for the real
figure and still compares that path, so it is exercised everywhere.

usage: bench/kernel_test_speed.py [CUDIAG_BINARY] [--runs N]
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PTX = os.path.join(HERE, "..", "src", "kernel_test", "kernels", "axpy.ptx")


def build_floor(tmp):
    exe = os.path.join(tmp, "kernel_test_floor")
    subprocess.run(["cc", "-O2", "-o", exe, os.path.join(HERE, "kernel_test_floor.c"), "-ldl", "-lm"], check=True)
    return exe


def time_once(argv):
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000.0


def main():
    args = sys.argv[1:]
    runs = 10
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i : i + 2]
    cudiag = args[0] if args else os.path.join(HERE, "..", "build", "src", "cudiag")
    with tempfile.TemporaryDirectory() as tmp:
        floor = build_floor(tmp)
        probe = subprocess.run([floor, PTX], capture_output=True, text=True)
        gpu = probe.returncode == 0
        if not gpu:
            print(f"needs a GPU for the real figure: the floor says '{probe.stdout.strip()}'.")
            print("Comparing the no-GPU path instead (both stop at cuInit).")
        commands = {
            "floor (cuInit + ctx + PTX load + launch + check)": [floor, PTX],
            "cudiag test --no-nvrtc --no-frameworks": [cudiag, "test", "--no-nvrtc", "--no-frameworks"],
            "cudiag test (everything)": [cudiag, "test"],
        }
        times = {name: [] for name in commands}
        for argv in commands.values():
            time_once(argv)  # warm-up: page cache, JIT cache
        for _ in range(runs):
            for name, argv in commands.items():  # interleaved, so drift hits every command alike
                times[name].append(time_once(argv))
        floor_ms = statistics.median(times[next(iter(commands))])
        print(f"{'command':52} {'median ms':>10} {'x floor':>8}")
        for name, t in times.items():
            med = statistics.median(t)
            print(f"{name:52} {med:10.1f} {med / floor_ms:8.2f}")
        ratio = statistics.median(times["cudiag test --no-nvrtc --no-frameworks"]) / floor_ms
        verdict = "meets" if ratio <= 1.5 else "misses"
        print(f"\ncudiag test / floor = {ratio:.2f} ({verdict} the 1.5x goal; {'GPU' if gpu else 'no-GPU path'}, {runs} runs)")


if __name__ == "__main__":
    main()
