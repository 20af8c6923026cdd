#!/usr/bin/env python3
"""No code reads a report path the schema does not define.

Scans src/ for the literal report paths code reads — the first string
argument of fact_at, value_at, string_at, version_at, bool_at, code_at,
is_assumed, present, evidence_from, failed_call, fact_error and the
renderers' fact_text/val/result_text, and the path lists of
src/model/host_driver.cpp — and resolves each one in
schema/report.schema.json (properties, then additionalProperties, array
items for "[N]", $ref). A path that leaves what the schema describes fails;
below an object the schema leaves open ({"type": "object"} alone), nothing
more can be checked and the path is accepted. Exit 1 naming each bad path.

With the cudiag binary it also checks the probes' side: every probe
registered in src/probes/ (RegisterProbe, RegisterLayerProbe) writes a
top-level key the schema describes, every layer of src/model/layers.cpp is
one, and every fact path real collections write under those keys (this
machine with --binaries, and the fixture machines under --root) resolves in
the schema the same way.

  tests/schema/report_paths_test.py [REPO_ROOT [CUDIAG_BINARY]]
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

READERS = ("fact_at", "value_at", "string_at", "version_at", "bool_at", "code_at", "is_assumed", "present",
           "evidence_from", "failed_call", "fact_error", "fact_text", "val", "result_text")
CALL = re.compile(r"\b(?:" + "|".join(READERS) + r")\s*\(\s*[A-Za-z_.>-]+\s*,\s*\"([^\"]+)\"")
# `for (const char* path : {"kernel_driver.version", "nvml.driver_version"})`
PATH_LIST = re.compile(r"for\s*\(\s*const\s+char\s*\*\s*\w+\s*:\s*\{([^}]*)\}")
LITERAL = re.compile(r"\"([a-z_]+(?:\.[A-Za-z0-9_]+(?:\[\d+\])?)+)\"")


def resolve(schema, node):
    """`node` with its $ref followed; properties beside a $ref (2020-12) are merged in."""
    while isinstance(node, dict) and "$ref" in node:
        target = dict(schema["$defs"][node["$ref"].split("/")[-1]])
        props = dict(target.get("properties", {}))
        props.update(node.get("properties", {}))
        rest = {k: v for k, v in node.items() if k not in ("$ref", "properties")}
        target.update(rest)
        if props:
            target["properties"] = props
        node = target
    return node


def check(schema, path):
    """"" when the schema defines `path`, else why not."""
    node = schema
    walked = []
    for part in path.split("."):
        m = re.fullmatch(r"([A-Za-z0-9_]+)((?:\[\d+\])*)", part)
        if not m:
            return f"malformed segment {part!r}"
        key, indices = m.group(1), m.group(2)
        node = resolve(schema, node)
        props = node.get("properties", {}) if isinstance(node, dict) else {}
        extra = node.get("additionalProperties") if isinstance(node, dict) else None
        if key in props:
            node = props[key]
        elif isinstance(extra, dict):
            node = extra
        elif not props and extra is None:
            return ""  # an object the schema leaves open: nothing below it is described
        else:
            where = ".".join(walked) or "the report"
            return f"{where} has no key {key!r} in the schema"
        walked.append(part)
        for _ in re.findall(r"\[\d+\]", indices):
            node = resolve(schema, node)
            if not isinstance(node, dict) or "items" not in node:
                return f"{'.'.join(walked)} is not an array in the schema"
            node = node["items"]
    return ""


def report_paths(src, top_keys):
    """Literal paths from the report's root: those whose first key is a top-level key of the schema (a
    path relative to a sub-object, "build.cuda" of one framework, is that reader's own business)."""
    for path in sorted(src.rglob("*.cpp")) + sorted(src.rglob("*.h")):
        text = path.read_text(errors="replace")
        found = set(CALL.findall(text))
        for body in PATH_LIST.findall(text):
            found.update(LITERAL.findall(body))
        for p in sorted(found):
            if p.endswith(".") or re.split(r"[.\[]", p)[0] not in top_keys:
                continue  # a prefix joined with a key at run time, or not a report path
            yield path, p


REGISTRATION = re.compile(r"Register(?:Layer)?Probe\s+\w+\s*\{\s*\{\s*\"(\w+)\"")
FIXTURES = ("dgx-h100", "docker-no-gpu", "docker-nvidia", "wsl2")


def written_paths(node, path, out):
    """Every path in `node` (the first 3 items of each array)."""
    if isinstance(node, dict):
        for k, v in node.items():
            written_paths(v, f"{path}.{k}", out)
    elif isinstance(node, list):
        for i, v in enumerate(node[:3]):
            written_paths(v, f"{path}[{i}]", out)
    out.add(path)


def probe_paths(root, binary, schema):
    """Problems with what the registered probes write; (problems, keys, paths checked)."""
    keys = set()
    for f in sorted((root / "src" / "probes").glob("*.cpp")):
        keys.update(REGISTRATION.findall(f.read_text(errors="replace")))
    layers = re.findall(r'"(\w+)"', (root / "src" / "model" / "layers.cpp").read_text().split("layer_order()")[1]
                        .split(";")[0])
    bad = [f"probe key {k!r} is not a top-level key of the schema" for k in sorted(keys)
           if k not in schema["properties"]]
    bad += [f"layer {k!r} (src/model/layers.cpp) is not a top-level key of the schema" for k in layers
            if k not in schema["properties"]]
    finding_layers = schema["$defs"]["finding"]["properties"]["layer"]["enum"]
    bad += [f"layer {k!r} (src/model/layers.cpp) is not in the schema's finding.layer enum" for k in layers
            if k not in finding_layers]
    if len(layers) < 9:
        bad.append(f"read {len(layers)} layers from src/model/layers.cpp: has layer_order() changed shape?")
    runs = [["check", "--format", "json", "--binaries"]]
    runs += [["--root", str(root / "tests" / "fixtures" / "machines" / m), "check", "--format", "json"]
             for m in FIXTURES]
    seen = {}
    env = dict(os.environ, CUDIAG_CACHE_DIR="")
    for args in runs:
        out = subprocess.run([binary] + args, capture_output=True, text=True, env=env, timeout=120).stdout
        report = json.loads(out)
        for k in keys & set(report):
            paths = set()
            written_paths(report[k], k, paths)
            for p in paths:
                why = check(schema, p)
                if why:
                    # One line per schema gap, not per GPU or library.
                    seen.setdefault(re.sub(r"\[\d+\]", "[N]", why), f"{' '.join(args[:2])}: writes {p}")
    bad += [f"{where}: {why}" for why, where in sorted(seen.items())]
    return bad, keys, len(runs)


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
    schema = json.loads((root / "schema" / "report.schema.json").read_text())
    bad = []
    n = 0
    for path, p in report_paths(root / "src", set(schema["properties"])):
        n += 1
        why = check(schema, p)
        if why:
            bad.append(f"{path.relative_to(root)}: reads {p}: {why}")
    for b in bad:
        print(b)
    print(f"{n} literal report paths read in src/, {len(bad)} not in schema/report.schema.json")
    failed = bool(bad) or n <= 50
    if len(sys.argv) > 2:
        probe_bad, keys, runs = probe_paths(root, sys.argv[2], schema)
        for b in probe_bad:
            print(b)
        print(f"{len(keys)} registered probes ({', '.join(sorted(keys))}), {runs} collections: "
              f"{len(probe_bad)} facts or keys not in schema/report.schema.json")
        failed = failed or bool(probe_bad) or len(keys) < 9
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
