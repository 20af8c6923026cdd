#!/ usr / bin / python3
"""Make a fleet of saved cudiag reports for `cudiag fleet`, from real reports.

The sources are real: `cudiag report --format json` run on this machine and
on the fixture machines (tests/fixtures/machines/*, through --root). Each node
of the fleet is one of them with its compatibility-deciding values set from a
profile — driver (and the CUDA version it supports), GPUs (8 or 4 H100s from
the DGX fixture, or none), cuDNN — and per-node noise that must not split a
group (collection time, timings, host name, kernel release; on 1 % of nodes the
runtime's path, which only costs `fleet` a cache miss). Findings are the
source report's own, plus injected ones per profile and per node, so the
per-finding counts differ from the group counts.

Also written, besides the N reports: truncated, foreign (valid JSON, not a
report), binary garbage, empty, too deeply nested, wrongly typed and corrupt
gzip files, and a README that is not *.json (ignored, not counted). 1 % of the
reports are .json.gz and 1 % .json.zst.

The ground truth goes to DIR/../<name>.expected.json: reports, unreadable,
groups (the number of distinct profiles used), per-finding node counts.
The generator knows these by construction, not by running cudiag.

usage: bench/fleet_generate.py OUT_DIR [--count N] [--cudiag BIN] [--seed S]
"""
import argparse
import copy
import gzip
import json
import os
import random
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

DRIVERS = [("550.54.15", "12.4"), ("535.261.03", "12.2"), ("570.124.06", "12.8"), ("580.65.06", "13.0")]
CUDNN = ["9.1.0", "9.19.0", "8.9.7"]
GPUS = ["h100x8", "h100x4", "none"]
BASES = ["this-machine", "dgx-h100", "docker-nvidia"]


def real_reports(cudiag):
    """The source reports: this machine, and each fixture machine."""
    out = {}
    run = subprocess.run([cudiag, "report", "--format", "json"], capture_output=True, text=True)
    out["this-machine"] = json.loads(run.stdout)
    for m in ("dgx-h100", "docker-nvidia"):
        run = subprocess.run(
            [cudiag, "--root", os.path.join(ROOT, "tests", "fixtures", "machines", m), "report", "--format", "json"],
            capture_output=True,
            text=True,
        )
        out[m] = json.loads(run.stdout)
    return out


def fact(value, source):
    return {"value": value, "source": source}


def apply_profile(report, profile, dgx):
    base, (driver, cuda), gpus, cudnn = profile
    r = copy.deepcopy(report)
    kd = r.setdefault("kernel_driver", {})
    kd["version"] = fact(driver, "file:/proc/driver/nvidia/version")
    nvml = r.setdefault("nvml", {})
    nvml["driver_version"] = fact(driver, "call:libnvidia-ml.so.1!nvmlSystemGetDriverVersion")
    nvml["cuda_driver_version"] = fact(cuda, "call:libnvidia-ml.so.1!nvmlSystemGetCudaDriverVersion")
    api = r.setdefault("driver_api", {})
    api["library_version"] = fact(driver, f"file:/usr/lib/x86_64-linux-gnu/libcuda.so.{driver}")
    api["cuda_driver_version"] = fact(cuda, "call:libcuda.so.1!cuDriverGetVersion")
    api["forward_compat_package"] = fact(False, "file:libcuda.so.1")
    pci = dgx["kernel_driver"]["pci_devices"]
    if gpus == "none":
        kd["pci_devices"] = []
    elif gpus == "h100x4":
        kept, n = [], 0
        for d in pci:
            if d.get("kind", "gpu") == "gpu":
                n += 1
                if n > 4:
                    continue
            kept.append(d)
        kd["pci_devices"] = copy.deepcopy(kept)
    else:
        kd["pci_devices"] = copy.deepcopy(pci)
    nvml["gpus"] = []
    api["devices"] = []
    libs = r.setdefault("libraries", {})
    lib = libs.setdefault("cudnn", {"name": "cuDNN", "instances": [], "multiple_versions": False})
    lib["distinct_versions"] = [cudnn]
    return r


def profiles(count, rng):
    """(profile, nodes) with one clear majority and 23 minority groups of uneven sizes."""
    majority = ("this-machine", DRIVERS[3], "h100x8", CUDNN[1])  # CUDA 13 on R580: a sound stack
    others = []
    for base in BASES:
        for d in DRIVERS:
            for g in GPUS:
                for c in CUDNN:
                    p = (base, d, g, c)
                    if p != majority:
                        others.append(p)
    rng.shuffle(others)
    others = others[:23]
    sizes = [max(1, count * (k + 1) // 2760) for k in range(len(others))]  # 23 groups: ~10 % of the nodes
    plan = [(p, s) for p, s in zip(others, sizes)]
    plan.insert(0, (majority, count - sum(sizes)))
    return plan


def injected_findings(profile):
    base, (driver, _), gpus, cudnn = profile
    out = []
    if driver == "535.261.03":
        out.append({"id": "bench.driver_branch_535", "layer": "kernel_driver", "severity": "error",
                    "message": f"Driver {driver} is below this fleet's minimum branch (R550)."})
    if cudnn.startswith("8."):
        out.append({"id": "bench.cudnn_8", "layer": "libraries", "severity": "warning",
                    "message": f"cuDNN {cudnn} is older than the fleet's 9.x."})
    return out


def template(report, profile, dgx, runtime_token):
    r = apply_profile(report, profile, dgx)
    r["collected_at"] = "@@TS@@"
    r.setdefault("timings", {})["total_ms"] = "@@MS@@"
    host = r.setdefault("host", {})
    host["hostname"] = fact("@@HOST@@", "call:gethostname")
    host["kernel_release"] = fact("@@KREL@@", "file:/proc/sys/kernel/osrelease")
    if runtime_token:
        for rt in r.get("cuda_runtime", {}).get("runtimes", []) or []:
            rt["path"] = "/opt/@@HOST@@/lib/libcudart.so"
    r["findings"] = list(r.get("findings", [])) + injected_findings(profile)
    r["findings"].append("@@RANDOM@@")  # a per-node finding, or nothing
    text = json.dumps(r, indent=2)
    assert ',\n    "@@RANDOM@@"' in text, "findings list not where the template expects it"
    return text.replace('"@@MS@@"', "@@MS@@").replace(',\n    "@@RANDOM@@"', "@@RANDOM@@")


RANDOM_FINDING = ',\n    {"id": "bench.node_random", "layer": "host", "severity": "info", "message": "Picked at random."}'


def write_unreadable(out, sample_text, rng):
    bad = os.path.join(out, "bad")
    os.makedirs(bad, exist_ok=True)
    files = {}
    for k in range(20):
        files[f"truncated-{k:02d}.json"] = sample_text[: rng.randrange(100, len(sample_text) - 100)].encode()
    for k in range(8):
        files[f"foreign-{k:02d}.json"] = json.dumps({"apiVersion": "v1", "kind": "Pod", "n": k}).encode()
    files["foreign-array.json"] = b"[1, 2, 3]"
    files["foreign-schema.json"] = json.dumps({"schema": "cudiag.lock/1"}).encode()
    for k in range(5):
        files[f"garbage-{k:02d}.json"] = bytes(rng.randrange(256) for _ in range(4096))
    files["empty.json"] = b""
    files["deep.json"] = b'{"schema": "cudiag.report/1", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    files["wrong-type.json"] = json.dumps(
        {"schema": "cudiag.report/1", "kernel_driver": {"pci_devices": [{"kind": 5}]}}).encode()
    files["wrong-type-runtimes.json"] = json.dumps(
        {"schema": "cudiag.report/1", "cuda_runtime": {"runtimes": [{"runtime_version": "13.0", "real_path": 7}]}}).encode()
    files["corrupt.json.gz"] = gzip.compress(sample_text.encode())[:3000]
    for name, data in files.items():
        with open(os.path.join(bad, name), "wb") as f:
            f.write(data)
    with open(os.path.join(out, "README.txt"), "w") as f:
        f.write("not a report: ignored by cudiag fleet (not *.json), not counted\n")
    return len(files)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=100000)
    ap.add_argument("--cudiag", default=os.path.join(ROOT, "build", "src", "cudiag"))
    ap.add_argument("--seed", type=int, default=15)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    sources = real_reports(a.cudiag)
    dgx = sources["dgx-h100"]
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    os.makedirs(a.out)
    plan = profiles(a.count, rng)
    order = [pi for pi, (_, n) in enumerate(plan) for _ in range(n)]
    rng.shuffle(order)  # groups interleave across racks, as on a real fleet
    templates = {}
    findings = {}
    groups_used = set()
    to_zstd = []
    total_bytes = 0
    for i, pi in enumerate(order):
        profile = plan[pi][0]
        odd_path = i % 100 == 7
        key = (pi, odd_path)
        if key not in templates:
            templates[key] = template(sources[profile[0]], profile, dgx, odd_path)
        host = f"node-{i:06d}"
        rand = i % 37 == 0
        text = (templates[key].replace("@@TS@@", f"2026-12-03T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z")
                .replace("@@MS@@", f"{50 + (i * 7919) % 900}.{i % 1000:03d}")
                .replace("@@HOST@@", host)
                .replace("@@KREL@@", f"5.15.0-{90 + i % 17}-generic")
                .replace("@@RANDOM@@", RANDOM_FINDING if rand else ""))
        groups_used.add(pi)
        ids = {f["id"] for f in json.loads(templates[key].replace("@@MS@@", "0").replace("@@RANDOM@@", ""))["findings"]} \
            if key not in findings else findings[key]
        findings[key] = ids
        rack = os.path.join(a.out, f"rack-{i // 1000:03d}")
        os.makedirs(rack, exist_ok=True)
        path = os.path.join(rack, f"{host}.json")
        data = text.encode()
        total_bytes += len(data)
        if i % 100 == 3:
            with open(path + ".gz", "wb") as f:
                f.write(gzip.compress(data, 6))
        else:
            with open(path, "wb") as f:
                f.write(data)
            if i % 100 == 5:
                to_zstd.append(path)
    for k in range(0, len(to_zstd), 500):
        subprocess.run(["zstd", "-q", "--rm", *to_zstd[k:k + 500]], check=True)
    counts = {}
    for i, pi in enumerate(order):
        for fid in findings[(pi, i % 100 == 7)]:
            counts[fid] = counts.get(fid, 0) + 1
        if i % 37 == 0:
            counts["bench.node_random"] = counts.get("bench.node_random", 0) + 1
    sample = templates[(0, False)].replace("@@TS@@", "x").replace("@@MS@@", "1").replace("@@HOST@@", "x") \
        .replace("@@KREL@@", "x").replace("@@RANDOM@@", "")
    unreadable = write_unreadable(a.out, sample, rng)
    expected = {
        "reports": a.count,
        "unreadable": unreadable,
        "groups": len(groups_used),
        "majority": plan[0][1],
        "group_sizes": sorted((n for _, n in plan if n > 0), reverse=True),
        "findings": dict(sorted(counts.items())),
        "json_bytes": total_bytes,
    }
    with open(a.out.rstrip("/") + ".expected.json", "w") as f:
        json.dump(expected, f, indent=2)
    print(f"{a.count} reports ({total_bytes / 1e9:.2f} GB of JSON, {total_bytes / a.count / 1000:.1f} KB each), "
          f"{unreadable} unreadable files, {len(groups_used)} groups -> {a.out}")


if __name__ == "__main__":
    sys.exit(main())
