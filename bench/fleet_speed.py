#!/ usr / bin / python3
"""`cudiag fleet` over a generated fleet, beside the obvious alternatives.

Generates the fleet (bench/fleet_generate.py: N real-derived reports plus bad
files) unless DIR exists, reads it once to warm the page cache, then times:
  cudiag   `cudiag fleet DIR --format json` (every group, finding, host; gz/zst too)
  jq       `find DIR -name '*.json' | xargs jq` emitting a stack key and the
           finding ids per report, then `sort | uniq -c` (plain .json only:
           jq reads neither gzip nor zstd; it stops a file at its first error)
  python   one process, json.load per file (plain and .gz), a Counter of keys
           and of finding ids
and prints wall seconds, CPU seconds, peak RSS and the ratio to cudiag. It
checks that cudiag's counts (reports, unreadable, groups and their sizes,
every finding's node count) equal the generator's ground truth, and exits 1
if not. The goal (issue 15): 100,000 reports of ~33 KB in under 10 s on the
2-core CI machine. The machine is shared: the load average is printed.

usage: bench/fleet_speed.py [--count N] [--dir DIR] [--keep] [--cudiag BIN] [--skip-alternatives]
"""
import argparse
import collections
import gzip
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

JQ_PROGRAM = (
    '("S " + ([.kernel_driver.version.value?, .driver_api.cuda_driver_version.value?, '
    "[.cuda_runtime.runtimes[]?.runtime_version.value?], "
    "[.libraries[]?.distinct_versions[]?], [.kernel_driver.pci_devices[]?.device_id.value?], "
    ".container.image.value?] | tostring)), (.findings[]?.id | \"F \" + .)"
)

PY_LOOP = r'''
import collections, gzip, json, os, sys
stacks, findings, bad = collections.Counter(), collections.Counter(), 0
for d, _, names in os.walk(sys.argv[1]):
    for n in names:
        p = os.path.join(d, n)
        try:
            if n.endswith(".json"):
                r = json.load(open(p, "rb"))
            elif n.endswith(".json.gz"):
                r = json.load(gzip.open(p))
            else:
                continue
            kd, api = r.get("kernel_driver", {}), r.get("driver_api", {})
            key = json.dumps([kd.get("version", {}).get("value"), api.get("cuda_driver_version", {}).get("value"),
                              [x.get("runtime_version", {}).get("value") for x in r.get("cuda_runtime", {}).get("runtimes", [])],
                              sorted(v for l in r.get("libraries", {}).values() for v in l.get("distinct_versions", [])),
                              [x.get("device_id", {}).get("value") for x in kd.get("pci_devices", [])],
                              r.get("container", {}).get("image", {}).get("value")])
            stacks[key] += 1
            for f in {f["id"] for f in r.get("findings", [])}:
                findings[f] += 1
        except Exception:
            bad += 1
print(len(stacks), sum(stacks.values()), bad, len(findings))
'''


def timed(argv, shell=False, stdout=subprocess.DEVNULL):
    """Wall and CPU seconds and peak RSS (MB) of one command (with its children, for a shell)."""
    wrapped = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", "/tmp/fleet_speed.time"]
    argv = wrapped + (["bash", "-c", argv] if shell else argv)
    start = time.perf_counter()
    p = subprocess.run(argv, stdout=stdout, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    e, u, s, m = open("/tmp/fleet_speed.time").read().split()[-4:]
    return {
  "wall" : wall,
           "cpu" : float(u) + float(s),
           "rss_mb" : int(m) / 1024,
           "rc" : p.returncode,
           "stdout" : p.stdout if stdout == subprocess.PIPE else "",
           "stderr" : p.stderr
}

def check(out_json, expected):
    r = json.load(open(out_json))
    got = {
        "reports": r["reports"],
        "unreadable": len(r["unreadable"]),
        "groups": r["stacks"],
        "group_sizes": [g["count"] for g in r["groups"]],
        "findings": {k: v["count"] for k, v in sorted(r["findings"].items())},
    }
    ok = True
    for k, v in got.items():
        if v != expected[k]:
            ok = False
            print(f"MISMATCH {k}: cudiag {v} != expected {expected[k]}")
    hosts = sum(len(g["hosts"]) for g in r["groups"])
    if hosts != expected["reports"]:
        ok = False
        print(f"MISMATCH hosts listed in groups: {hosts}")
    return ok, got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=100000)
    ap.add_argument("--dir", default="/tmp/cudiag-fleet-bench")
    ap.add_argument("--keep", action="store_true", help="keep the generated fleet")
    ap.add_argument("--cudiag", default=os.path.join(ROOT, "build", "src", "cudiag"))
    ap.add_argument("--skip-alternatives", action="store_true")
    a = ap.parse_args()
    fleet = a.dir
    expected_path = fleet.rstrip("/") + ".expected.json"
    if not os.path.isdir(fleet) or not os.path.exists(expected_path):
        subprocess.run([sys.executable, os.path.join(HERE, "fleet_generate.py"), fleet, "--count", str(a.count),
                        "--cudiag", a.cudiag], check=True)
    expected = json.load(open(expected_path))
#Warm the page cache(the goal is stated for a warm cache), and count the bytes.
    total = 0
    for d, _, names in os.walk(fleet):
        for n in names:
            with open(os.path.join(d, n), "rb") as f:
                total += len(f.read())
    print(f"fleet: {expected['reports']:,} reports + {expected['unreadable']} unreadable files, "
          f"{total / 1e9:.2f} GB on disk ({expected['json_bytes'] / 1e9:.2f} GB of JSON), "
          f"{expected['groups']} groups; {os.cpu_count()} CPUs")
    load_before = os.getloadavg()
    out = "/tmp/fleet_speed.out.json"
    rows = []
    cud = timed([a.cudiag, "fleet", fleet, "--format", "json", "-o", out])
    ok, got = check(out, expected)
    rows.append(("cudiag fleet (json)", cud))
    cud_text = timed([a.cudiag, "fleet", fleet])
    rows.append(("cudiag fleet (text)", cud_text))
    racks = sorted(os.path.join(fleet, d) for d in os.listdir(fleet) if d.startswith("rack-"))
    tenth = timed([a.cudiag, "fleet", *racks[: max(1, len(racks) // 10)], "--format", "json"])
    rows.append((f"cudiag fleet, first {max(1, len(racks) // 10)} racks", tenth))
    if not a.skip_alternatives:
        jq = timed(f"find {fleet} -name '*.json' -print0 | xargs -0 jq -r '{JQ_PROGRAM}' 2>/dev/null "
                   "| sort | uniq -c | wc -l", shell=True, stdout=subprocess.PIPE)
        rows.append(("jq pipeline", jq))
        py = timed([sys.executable, "-c", PY_LOOP, fleet], stdout=subprocess.PIPE)
        rows.append(("python json loop", py))
    load_after = os.getloadavg()
    if not a.skip_alternatives:
        print(f"jq: {jq['stdout'].strip()} distinct stack keys + finding ids (uniq -c lines); "
              f"python: stacks, reports, unreadable, finding ids = {py['stdout'].strip()} {py['stderr'].strip()[-200:]}")
    print(f"\n{'command':34} {'wall s':>8} {'CPU s':>8} {'peak MB':>8} {'x cudiag':>9}")
    for name, r in rows:
        print(f"{name:34} {r['wall']:8.2f} {r['cpu']:8.2f} {r['rss_mb']:8.1f} {r['wall'] / cud['wall']:9.1f}")
    mb_per_s = expected["json_bytes"] / 1e6 / cud["wall"]
    print(f"\ncudiag: {expected['reports'] / cud['wall']:,.0f} reports/s, {mb_per_s:,.0f} MB/s of JSON; "
          f"exit {cud['rc']}; counts {'exactly as generated' if ok else 'WRONG'} "
          f"({got['reports']:,} reports, {got['unreadable']} unreadable, {got['groups']} groups, "
          f"{len(got['findings'])} finding ids)")
    print(f"goal: < 10 s -> {'met' if cud['wall'] < 10 else 'NOT met'}")
    print(f"load average before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, "
          f"after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f} (shared machine: timings are noisy)")
    if not a.keep:
        shutil.rmtree(fleet, ignore_errors=True)
        os.remove(expected_path)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
