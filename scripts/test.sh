#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test.
#   scripts/test.sh             normal build in build/
#   scripts/test.sh --sanitize  AddressSanitizer + UndefinedBehaviorSanitizer build in build-asan/
#   scripts/test.sh --slow      build in build/, then only the slow tier: real CUDA framework wheels
#                               from PyPI in a cached venv (tests/slow/run.sh; ~14 GB, minutes the first time)
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
flags=()
slow=0
if [ "${1:-}" = "--sanitize" ]; then
  build=build-asan
  flags+=(-DCUDIAG_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
elif [ "${1:-}" = "--slow" ]; then
  slow=1
fi

if [ "$(id -u)" -eq 0 ]; then
  bash scripts/install-deps.sh
fi
# The same configuration as install-and-run.sh (scripts/configure.sh), so
# after it only the tests are left to build.
source scripts/configure.sh
cudiag_configure "$build" "${flags[@]}"
ninja -C "$build" -j "$(nproc)"
if [ "$slow" = 1 ]; then
  exec bash tests/slow/run.sh "$build"
fi
# Children under ASan inherit its options; leaks in NVIDIA's libraries are not ours.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
