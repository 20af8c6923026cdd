#!/usr/bin/env python3
"""Small files with one job each: no source file of the project (C, C++ and
Python under src/, tests/, fuzz/, bench/, scripts/ and python/) is longer than
600 lines. Data (JSON corpora, fixtures) is not code and is not counted. Exit 1
naming each file over the limit, with its length.

  tests/arch/file_size_test.py [REPO_ROOT]
"""
import sys
from pathlib import Path

LIMIT = 600
FOLDERS = ("src", "tests", "fuzz", "bench", "scripts", "python")
SUFFIXES = {".c", ".cpp", ".h", ".py"}


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
    checked = 0
    too_long = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            checked += 1
            n = sum(1 for _ in path.open(encoding="utf-8", errors="replace"))
            if n > LIMIT:
                too_long.append(f"{path.relative_to(root)}: {n} lines (limit {LIMIT}): split it by job")
    if checked < 100:
        print(f"file_size: only {checked} source files found under {root}: wrong root?")
        return 1
    for line in too_long:
        print(line)
    print(f"file_size: {checked} files, {len(too_long)} over {LIMIT} lines")
    return 1 if too_long else 0


if __name__ == "__main__":
    sys.exit(main())
