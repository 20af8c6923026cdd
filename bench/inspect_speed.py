#!/usr/bin/python3
"""cudiag inspect vs. cuobjdump, side by side in one run.

For one big library (default /usr/local/cuda/lib64/libcublasLt.so.13) runs
`cudiag inspect --format json LIB` and `cuobjdump --list-elf --list-ptx LIB`
N times each, interleaved after one warm-up each (so both read a warm page
cache), and prints the median wall time, the ratio, and each one's peak RSS
(ru_maxrss of the child, from wait4). Then times `cudiag inspect --format json`
over the whole lib64 directory, and (with --whole-cuobjdump) cuobjdump over
every file in it, once.

Goals (issue 4): >= 20x faster than cuobjdump, peak memory far below the file
size, the whole lib64 in < 1 s warm.

usage: bench/inspect_speed.py [--cudiag PATH] [--cuobjdump PATH] [--lib FILE]
                              [--dir DIR] [--runs N] [--whole-cuobjdump]
"""
import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def find_cuobjdump():
    if os.environ.get("CUDIAG_CUOBJDUMP"):
        return os.environ["CUDIAG_CUOBJDUMP"]
    found = shutil.which("cuobjdump") or (
        "/usr/local/cuda/bin/cuobjdump" if os.path.exists("/usr/local/cuda/bin/cuobjdump") else None)
    if found:
        return found
    # The pip wheel nvidia-cuda-cuobjdump: site-packages/nvidia/cu13/bin/cuobjdump.
    import importlib.util
    spec = importlib.util.find_spec("nvidia")
    for base in (spec.submodule_search_locations if spec else []):
        candidate = os.path.join(base, "cu13", "bin", "cuobjdump")
        if os.path.isfile(candidate):
            return candidate
    return None


def run_once(argv):
    """Wall ms, peak RSS (KiB), exit code and CPU ms (user + system) of one run; output discarded.

    CPU time is printed next to wall time because on a shared, loaded machine
    a short run's wall time is mostly waiting for a core."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = (time.perf_counter() - start) * 1000.0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_maxrss, proc.returncode, (usage.ru_utime + usage.ru_stime) * 1000.0


def mib(kib):
    return kib / 1024.0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cudiag", default=os.path.join(HERE, "..", "build", "src", "cudiag"))
    p.add_argument("--cuobjdump", default=None)
    p.add_argument("--lib", default="/usr/local/cuda/lib64/libcublasLt.so.13")
    p.add_argument("--dir", default="/usr/local/cuda/lib64")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--whole-cuobjdump", action="store_true", help="also run cuobjdump on every file of --dir once")
    a = p.parse_args()

    cuobjdump = a.cuobjdump or find_cuobjdump()
    if not cuobjdump:
        sys.exit("inspect_speed.py: cuobjdump not found (pip install nvidia-cuda-cuobjdump or --cuobjdump PATH)")
    lib_size = os.path.getsize(a.lib)
    commands = {
        "cudiag inspect --format json": [a.cudiag, "inspect", "--format", "json", a.lib],
        "cuobjdump --list-elf --list-ptx": [cuobjdump, "--list-elf", "--list-ptx", a.lib],
    }
    for argv in commands.values():
        run_once(argv)  # warm the page cache for both
    samples = {name: [] for name in commands}
    cpu = {name: [] for name in commands}
    rss = {name: 0 for name in commands}
    for _ in range(a.runs):
        for name, argv in commands.items():
            ms, maxrss, rc, cpu_ms = run_once(argv)
            if rc != 0:
                sys.exit(f"inspect_speed.py: {' '.join(argv)} exited {rc}")
            samples[name].append(ms)
            cpu[name].append(cpu_ms)
            rss[name] = max(rss[name], maxrss)
    med = {name: statistics.median(v) for name, v in samples.items()}
    med_cpu = {name: statistics.median(v) for name, v in cpu.items()}
    cudiag_ms = med["cudiag inspect --format json"]
    cudiag_cpu = med_cpu["cudiag inspect --format json"]
    print(f"{os.path.basename(a.lib)}: {lib_size / 2**20:.0f} MiB, {a.runs} runs each, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'command':<34} {'median ms':>10} {'min ms':>9} {'x cudiag':>9} {'CPU ms':>9} {'x cudiag':>9} "
          f"{'peak RSS MiB':>13}")
    for name in commands:
        print(f"{name:<34} {med[name]:>10.1f} {min(samples[name]):>9.1f} {med[name] / cudiag_ms:>8.1f}x "
              f"{med_cpu[name]:>9.1f} {med_cpu[name] / cudiag_cpu:>8.1f}x {mib(rss[name]):>13.1f}")
    ratio = med["cuobjdump --list-elf --list-ptx"] / cudiag_ms
    cpu_ratio = med_cpu["cuobjdump --list-elf --list-ptx"] / cudiag_cpu
    rss_share = rss["cudiag inspect --format json"] * 1024 / lib_size

    files = sorted(f for f in glob.glob(os.path.join(a.dir, "*")) if os.path.isfile(f) and not os.path.islink(f))
    total = sum(os.path.getsize(f) for f in files)
    whole = [a.cudiag, "inspect", "--format", "json", a.dir]
    run_once(whole)
    dir_runs = [run_once(whole) for _ in range(a.runs)]
    dir_ms = statistics.median(r[0] for r in dir_runs)
    dir_cpu = statistics.median(r[3] for r in dir_runs)
    dir_rss = max(r[1] for r in dir_runs)
    print(f"\n{a.dir}: {len(files)} files, {total / 2**30:.2f} GiB")
    print(f"{'cudiag inspect --format json DIR':<34} {dir_ms:>10.1f} {min(r[0] for r in dir_runs):>9.1f} {'':>9} "
          f"{dir_cpu:>9.1f} {'':>9} {mib(dir_rss):>13.1f}")
    if a.whole_cuobjdump:
        start = time.perf_counter()
        for f in files:
            run_once([cuobjdump, "--list-elf", "--list-ptx", f])
        whole_ms = (time.perf_counter() - start) * 1000.0
        print(f"{'cuobjdump, file by file':<34} {whole_ms:>10.1f} {'':>9} {'':>13} {whole_ms / dir_ms:>8.1f}x")

    print("\ngoals:")
    print(f"  >= 20x faster than cuobjdump:     {ratio:.1f}x wall, {cpu_ratio:.1f}x CPU  "
          f"{'ok' if ratio >= 20 else 'MISSED'}")
    print(f"  peak RSS far below the file size: {100 * rss_share:.2f}% of it  {'ok' if rss_share < 0.05 else 'MISSED'}")
    print(f"  whole lib64 < 1 s warm:           {dir_ms / 1000:.3f} s wall, {dir_cpu / 1000:.3f} s CPU  "
          f"{'ok' if dir_ms < 1000 else 'MISSED'}")


if __name__ == "__main__":
    main()
