#!/usr/bin/env bash
# clang-format over every C and C++ file in src/, tests/, fuzz/ and bench/
# (.clang-format at the root); exits non-zero naming each file that differs.
# CI runs it before the build. To fix: the same list with `clang-format -i`.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files 'src/*.cpp' 'src/*.h' 'tests/*.cpp' 'tests/*.h' 'tests/*.c' 'fuzz/*.cpp' \
  'bench/*.cpp' 'bench/*.c')
clang-format --dry-run -Werror "${files[@]}"
echo "clang-format: ${#files[@]} files clean"
