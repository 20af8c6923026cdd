#!/bin/bash
# Evidence from a real GPU machine, in one run: `cudiag check --deep`,
# `cudiag test`, `cudiag inspect` of torch's CUDA libraries (when torch is
# installed there) and the kernel-test benchmark, each output saved under $OUT
# with the date, the GPU and the driver. See README.md.
#
# usage: tests/gpu-evidence/run.sh [CUDIAG_BINARY]     (OUT defaults to ./gpu-evidence-out)
set -u
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cudiag="${1:-${CUDIAG:-$repo/build/src/cudiag}}"
out="${OUT:-$PWD/gpu-evidence-out}"
mkdir -p "$out"

# Each step is bounded, so one hang cannot eat the machine's time.
run() {  # NAME SECONDS COMMAND...
  local name="$1" secs="$2"
  shift 2
  local start end rc
  start=$(date +%s.%N)
  timeout -k 5 "$secs" "$@" >"$out/$name.out" 2>"$out/$name.err"
  rc=$?
  end=$(date +%s.%N)
  printf '%-28s exit %-3s %6.1f s   %s\n' "$name" "$rc" "$(echo "$end - $start" | bc)" "$*" | tee -a "$out/summary.txt"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -srm)"
  echo "cudiag: $cudiag ($("$cudiag" --version 2>/dev/null | head -1))"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,pci.bus_id --format=csv 2>&1
  else
    echo "nvidia-smi: not on PATH"
  fi
  echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-<unset>}"
  echo "python3: $(command -v python3) $(python3 --version 2>&1)"
} >"$out/machine.txt" 2>&1
cat "$out/machine.txt"

run check-deep-text 120 "$cudiag" check --deep
run check-deep-json 120 "$cudiag" check --deep --format json
run test-text 180 "$cudiag" test
run test-json 180 "$cudiag" test --format json
run test-driver-only 60 "$cudiag" test --no-nvrtc --no-frameworks
run report-json 60 "$cudiag" report --format json

# torch's own CUDA libraries: what SASS/PTX do they carry for this GPU?
torch_lib=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null)
if [ -n "$torch_lib" ] && [ -d "$torch_lib" ]; then
  for lib in "$torch_lib"/libtorch_cuda.so "$torch_lib"/libc10_cuda.so; do
    [ -f "$lib" ] && run "inspect-$(basename "$lib" .so)" 300 "$cudiag" inspect "$lib"
  done
else
  echo "torch: not installed for $(command -v python3)" | tee -a "$out/summary.txt"
fi

run bench-kernel-test 300 python3 "$repo/bench/kernel_test_speed.py" "$cudiag" --runs 5
echo "outputs in $out"
