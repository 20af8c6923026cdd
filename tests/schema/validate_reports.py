#!/usr/bin/python3
"""Validates real cudiag output against schema/report.schema.json.

Runs the built cudiag on this machine (its real layers) and on every fixture
machine given, and checks each JSON report with jsonschema (Debian's
python3-jsonschema). Exit 1 on the first invalid report, naming it.
"""
import json
import subprocess
import sys

import jsonschema

def main() -> int:
    binary, schema_path, *roots = sys.argv[1:]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    # --binaries adds the `binaries` key (fatbin architectures of every CUDA library found).
    runs = [[binary, "report", "--format", "json"], [binary, "report", "--format", "json", "--binaries"]]
    runs += [[binary, "--root", root, "report", "--format", "json"] for root in roots]
    for argv in runs:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if proc.returncode not in (0, 1):
            print(f"{' '.join(argv)}: exit {proc.returncode}: {proc.stderr.strip()}")
            return 1
        report = json.loads(proc.stdout)
        errors = sorted(validator.iter_errors(report), key=lambda e: list(e.path))
        for e in errors[:10]:
            print(f"{' '.join(argv)}: {'/'.join(map(str, e.path))}: {e.message}")
        if errors:
            return 1
        print(f"valid: {' '.join(argv)}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
