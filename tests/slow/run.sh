#!/usr/bin/env bash
# The slow test tier: real CUDA framework wheels from PyPI (torch CUDA 12.8,
# the nvidia-*-cu12 wheels, jax[cuda12], cupy-cuda12x, onnxruntime-gpu —
# tests/slow/requirements-cuda12.txt) in a cached venv, and what cudiag reports
# about them checked against the frameworks themselves, the real dynamic
# loader and cuobjdump (tests/slow/real_wheels_test.py).
#
#   tests/slow/run.sh [BUILD_DIR]     (default build/; scripts/test.sh --slow builds it and runs this)
#
# Wheels are downloaded once into $CUDIAG_WHEEL_CACHE/wheelhouse (default
# ~/.cache/cudiag-test-wheels; ~4 GB) and the venv ($CUDIAG_WHEEL_CACHE/venv-cuda12,
# ~8.5 GB) is rebuilt offline from them only when the requirements change.
# Needs network access the first time, python3 with pip and venv.
set -euo pipefail
cd "$(dirname "$0")/../.."

build=${1:-build}
cudiag=$build/src/cudiag
[ -x "$cudiag" ] || { echo "no $cudiag: build first (scripts/test.sh --slow does)" >&2; exit 2; }

cache=${CUDIAG_WHEEL_CACHE:-$HOME/.cache/cudiag-test-wheels}
req=tests/slow/requirements-cuda12.txt
venv=$cache/venv-cuda12
python=/usr/bin/python3
stamp="$(sha256sum "$req" | cut -d' ' -f1) $($python -c 'import sys; print(sys.version.split()[0])')"

if [ "$(cat "$venv/.installed" 2>/dev/null || true)" != "$stamp" ]; then
  free_gb=$(df -Pk "$(dirname "$cache")" | awk 'NR==2 {print int($4 / 1048576)}')
  if [ "$free_gb" -lt 14 ]; then
    echo "slow tier: ${free_gb} GB free under $(dirname "$cache"); it needs ~14 GB (wheels + venv)" >&2
    exit 2
  fi
  mkdir -p "$cache/wheelhouse"
  echo "== slow tier: fetching wheels into $cache/wheelhouse (only those not there yet)"
  start=$SECONDS
  # pip download keeps every file it fetched; a wheel already there is not fetched again.
  $python -m pip download --disable-pip-version-check --no-input --progress-bar off -q \
    --only-binary=:all: --no-deps -d "$cache/wheelhouse" -r "$req"
  echo "   $((SECONDS - start)) s; wheelhouse $(du -sh "$cache/wheelhouse" | cut -f1)"
  echo "== slow tier: installing into $venv (offline, from the wheelhouse)"
  start=$SECONDS
  rm -rf "$venv"
  $python -m venv --without-pip "$venv"
  $python -m pip --python "$venv/bin/python3" install --disable-pip-version-check --no-input -q \
    --no-index --find-links "$cache/wheelhouse" --no-deps -r "$req"
  echo "$stamp" >"$venv/.installed"
  echo "   $((SECONDS - start)) s; venv $(du -sh "$venv" | cut -f1)"
fi

echo "== slow tier: tests (tests/slow/real_wheels_test.py)"
# The cuobjdump the build found (tests/inspect/CMakeLists.txt), to check the architectures against.
if [ -z "${CUDIAG_CUOBJDUMP:-}" ] && [ -f "$build/CMakeCache.txt" ]; then
  CUDIAG_CUOBJDUMP=$(sed -n 's/^CUDIAG_CUOBJDUMP:FILEPATH=//p' "$build/CMakeCache.txt")
  case "$CUDIAG_CUOBJDUMP" in *NOTFOUND*) CUDIAG_CUOBJDUMP= ;; esac
  export CUDIAG_CUOBJDUMP
fi
CUDIAG="$cudiag" CUDIAG_SLOW_VENV="$venv" $python tests/slow/real_wheels_test.py -v
