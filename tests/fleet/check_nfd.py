"""A cudiag NFD feature file checked the way nfd-master would (node-feature-discovery
source/local/local.go and pkg/apis/nfd/validate, as summarised in shared/reference/fleet.md
2.1), independently of cudiag's own validator, and against the report it came from.
Usage: check_nfd.py FEATURE_FILE REPORT_JSON"""
import datetime
import json
import re
import sys

path, report_path = sys.argv[1], sys.argv[2]
text = open(path).read()
report = json.load(open(report_path))
problems = []

NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
if len(text.encode()) > 65536:
    problems.append("over NFD's 65536-byte limit")

labels = {}
expiry = None
for n, line in enumerate(text.splitlines(), 1):
    if line.startswith("# +expiry-time="):
        expiry = datetime.datetime.fromisoformat(line.split("=", 1)[1].replace("Z", "+00:00"))
        continue
    if line.startswith("#") or not line.strip():
        continue
    key, _, value = line.partition("=")
    prefix, _, name = key.partition("/")
    if not (prefix and len(prefix) <= 253 and all(DNS_LABEL.match(p) for p in prefix.split("."))):
        problems.append(f"line {n}: prefix {prefix!r} is not a DNS subdomain")
    if prefix == "kubernetes.io" or prefix.endswith(".kubernetes.io"):
        problems.append(f"line {n}: {prefix} is a kubernetes.io namespace")
    if not (len(name) <= 63 and NAME.match(name)):
        problems.append(f"line {n}: name {name!r} invalid")
    if value and not (len(value) <= 63 and NAME.match(value)):
        problems.append(f"line {n}: value {value!r} invalid")
    if value.startswith("@"):
        problems.append(f"line {n}: value starts with @")
    labels[key] = value

now = datetime.datetime.now(datetime.timezone.utc)
if expiry is None:
    problems.append("no # +expiry-time= directive")
elif not (now < expiry <= now + datetime.timedelta(hours=2)):
    problems.append(f"expiry {expiry} not within the next 2 hours")
if text.splitlines()[1:2] != [l for l in text.splitlines() if l.startswith("# +expiry-time=")][:1]:
    problems.append("the expiry directive does not precede the labels")

ns = "cudiag.dev/"
has_error = any(f["severity"] == "error" for f in report["findings"])
want = {
    ns + "healthy": "false" if has_error else "true",
    ns + "first-failing-layer": report.get("first_failing_layer") or "none",
}
for layer, status in report["layer_status"].items():
    if layer in report:
        want[f"{ns}{layer}.ok"] = "false" if status == "error" else "true"
for k, v in want.items():
    if labels.get(k) != v:
        problems.append(f"{k}={labels.get(k)!r}, expected {v!r}")
if not any(k.startswith(ns + "driver.") for k in labels):
    problems.append("no driver labels")

if problems:
    print("FAIL: " + path + ": " + "; ".join(problems) + "\n" + text, file=sys.stderr)
    sys.exit(1)
print(f"ok: NFD feature file: {len(labels)} valid labels, expiry {expiry.isoformat()}")
