"""The promises deploy/kubernetes/daemonset.yaml makes (docs/fleet.md): GPU nodes only,
a read-only root filesystem, every host path read-only except the two output directories,
which are the ones NFD's and node_exporter's DaemonSets read, resources set, and a loop
that writes both files there. Usage: check_daemonset.py daemonset.yaml"""
import sys

import yaml

ds = yaml.safe_load(open(sys.argv[1]))
problems = []


def expect(cond, what):
    if not cond:
        problems.append(what)


spec = ds["spec"]["template"]["spec"]
expect(ds["kind"] == "DaemonSet", "not a DaemonSet")
expect(spec.get("nodeSelector") or spec.get("affinity"), "no node selector: it would run on every node")
expect(any(t.get("key") == "nvidia.com/gpu" for t in spec.get("tolerations", [])), "no nvidia.com/gpu toleration")
(c,) = spec["containers"]
env = {e["name"]: e.get("value") for e in c.get("env", [])}
expect(env.get("NVIDIA_VISIBLE_DEVICES") == "all", "no NVIDIA_VISIBLE_DEVICES=all: libcuda could not open /dev/nvidia*")
sc = c.get("securityContext", {})
expect(sc.get("readOnlyRootFilesystem") is True, "root filesystem not read-only")
expect(sc.get("allowPrivilegeEscalation") is False, "privilege escalation allowed")
expect(not sc.get("privileged"), "privileged")
for kind in ("requests", "limits"):
    for res in ("cpu", "memory"):
        expect(res in c.get("resources", {}).get(kind, {}), f"resources.{kind}.{res} not set")

outputs = {
    "/etc/kubernetes/node-feature-discovery/features.d": None,  # nfd-worker's features.d
    "/var/lib/node_exporter/textfile_collector": None,  # node_exporter's --collector.textfile.directory
}
volumes = {v["name"]: v for v in spec["volumes"]}
for m in c["volumeMounts"]:
    v = volumes[m["name"]]
    expect("hostPath" in v, f"volume {m['name']} is not a host path")
    path = v["hostPath"]["path"]
    if path in outputs:
        outputs[path] = m["mountPath"]
        expect(not m.get("readOnly"), f"output {path} mounted read-only")
    else:
        expect(m.get("readOnly") is True, f"host path {path} mounted writable")
        expect(m["mountPath"] == "/host" + path, f"host path {path} not under /host (cudiag --root /host)")
for path, mount in outputs.items():
    expect(mount is not None, f"{path} not mounted")

script = " ".join(c.get("command", []) + c.get("args", []))
nfd_dir, prom_dir = outputs.values()
expect(f"--format nfd -o {nfd_dir}/cudiag" in script, "the loop does not write the NFD file into features.d")
expect(f"--format prometheus -o {prom_dir}/cudiag.prom" in script, "the loop does not write cudiag.prom")
expect("--root /host" in script, "cudiag does not read the host (--root /host)")
expect("sleep" in script, "no schedule")

if problems:
    print("FAIL: daemonset.yaml: " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
print("ok: daemonset.yaml: GPU nodes, read-only root and host paths, resources, writes both files")
