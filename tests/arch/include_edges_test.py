#!/usr/bin/env python3
"""The folder contract, checked: every `#include "dir/file.h"` in src/ must be
an edge the "may depend on" column of docs/ARCHITECTURE.md's Folders table
allows. That table is this test's data.

Reading a cell: parenthesised text is a comment; every remaining word that
names a folder of src/ allows that folder, `folder/file` allows that one
header (file.h); "everything" allows all. A file may always include its own
folder. Exit 1, naming each edge, when one is not allowed.

  tests/arch/include_edges_test.py [REPO_ROOT]
"""
import re
import sys
from pathlib import Path

# Edges that need a bigger move than a small fix, each with its reason: none
# today. An entry is (file, "folder/header"): "why", and the test fails once
# the edge is gone, so the list cannot go stale.
EXCEPTIONS = {}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([A-Za-z0-9_.]+)"', re.M)


def allowed_table(arch_md, folders):
    table = {}
    for line in arch_md.splitlines():
        m = re.match(r"\|\s*`src/([a-z_]+)/`\s*\|[^|]*\|([^|]*)\|", line)
        if not m:
            continue
        folder, cell = m.group(1), m.group(2)
        text = re.sub(r"\([^)]*\)", " ", cell).replace("`", " ")
        allow = set()
        if "everything" in text:
            allow.add("*")
        for word in re.findall(r"[a-z_]+(?:/[a-z_]+)?", text):
            if word.split("/")[0] in folders:
                allow.add(word)
        table[folder] = allow
    return table


def edge_ok(allow, folder, to_dir, to_file):
    if to_dir == folder or "*" in allow or to_dir in allow:
        return True
    stem = to_file.rsplit(".", 1)[0]
    return f"{to_dir}/{stem}" in allow


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
    src = root / "src"
    folders = {p.name for p in src.iterdir() if p.is_dir()}
    table = allowed_table((root / "docs" / "ARCHITECTURE.md").read_text(), folders)
    missing = sorted(folders - set(table))
    bad = [f"src/{f}/ has no row in the Folders table of docs/ARCHITECTURE.md" for f in missing]
    used_exceptions = set()
    edges = 0
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".h", ".cpp", ".in") or path.parent == src:
            continue
        rel = path.relative_to(root).as_posix()
        folder = path.relative_to(src).parts[0]
        for to_dir, to_file in INCLUDE.findall(path.read_text(errors="replace")):
            if to_dir not in folders:
                continue  # a generated header (core/build_info.h lives in the build tree) or a system one
            edges += 1
            if edge_ok(table.get(folder, set()), folder, to_dir, to_file):
                continue
            if (rel, f"{to_dir}/{to_file}") in EXCEPTIONS:
                used_exceptions.add((rel, f"{to_dir}/{to_file}"))
                continue
            bad.append(f"{rel} includes {to_dir}/{to_file}: src/{folder}/ may not depend on {to_dir}/ "
                       f"(docs/ARCHITECTURE.md allows: {', '.join(sorted(table.get(folder, set()))) or 'nothing'})")
    for stale in sorted(set(EXCEPTIONS) - used_exceptions):
        bad.append(f"exception {stale[0]} -> {stale[1]} is no longer needed; remove it from {Path(__file__).name}")
    for b in bad:
        print(b)
    print(f"{edges} include edges between folders of src/, {len(used_exceptions)} named exceptions, "
          f"{len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
