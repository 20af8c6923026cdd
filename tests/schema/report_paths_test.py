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

  tests/schema/report_paths_test.py [REPO_ROOT]
"""
import json
import re
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
    return 1 if bad else 0 if n > 50 else 1


if __name__ == "__main__":
    sys.exit(main())
