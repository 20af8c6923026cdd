#!/usr/bin/env bash
# clang-format (.clang-format at the root) over every C++ file in src/, tests/,
# fuzz/ and bench/; exits non-zero naming each file that differs. Not the C test
# doubles in tests/doubles/, whose include order is load-bearing
# (double_scenario.h defines _GNU_SOURCE before the system headers).
# CI runs it after the test suite (which installs clang-format).
# To fix: the same file list with `clang-format -i`.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files 'src/*.cpp' 'src/*.h' 'tests/*.cpp' 'tests/*.h' 'fuzz/*.cpp' \
  'bench/*.cpp' ':!tests/doubles/*')
clang-format --dry-run -Werror "${files[@]}"
echo "clang-format: ${#files[@]} files clean"
