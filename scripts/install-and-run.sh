#!/usr/bin/env bash
# Quick start: installs what is missing, builds cudiag, runs its main report.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -eq 0 ]; then
  bash scripts/install-deps.sh
fi
source scripts/configure.sh
cudiag_configure build
ninja -C build -j "$(nproc)" cudiag
set +e
./build/src/cudiag check
rc=$?
set -e
echo "cudiag exited with $rc (0 no error finding, 1 an error finding, 2 bad input, 3 internal error)"
