#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in build-fuzz/ and runs each one for
# a bounded time, starting from its committed seeds in fuzz/corpus/<target>/.
# Exits non-zero when a target crashes, leaks, times out or trips ASan/UBSan;
# the input that did it is left in build-fuzz/fuzz-work/<target>/ (crash-*,
# timeout-*, oom-*). New interesting inputs go to a scratch corpus there, so
# the committed corpus only changes when someone copies them in on purpose.
#
#   bash fuzz/run.sh                     every target, FUZZ_SECONDS (60) each
#   FUZZ_SECONDS=600 bash fuzz/run.sh fuzz_inspect
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-60}"
build="${FUZZ_BUILD_DIR:-build-fuzz}"
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  targets=(fuzz_inspect fuzz_ld_cache fuzz_untrusted_json fuzz_redact fuzz_triage)
fi

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCUDIAG_FUZZ=ON -DCUDIAG_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
ninja -C "$build" "${targets[@]}"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
failed=()
for t in "${targets[@]}"; do
  work="$build/fuzz-work/$t"
  rm -rf "$work"
  mkdir -p "$work/corpus"
  dict=()
  if [ -f "fuzz/$t.dict" ]; then dict=(-dict="fuzz/$t.dict"); fi
  echo "== $t: ${seconds}s from fuzz/corpus/$t"
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: a parser must
  # not allocate what a file merely claims to hold.
  if ! "$build/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$work/" "${dict[@]}" "$work/corpus" "fuzz/corpus/$t" \
      >"$work/log" 2>&1; then
    tail -n 60 "$work/log"
    failed+=("$t")
    continue
  fi
  grep -E '^stat::(number_of_executed_units|peak_rss_mb|new_units_added)' "$work/log" || true
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz/run.sh: failed: ${failed[*]} (inputs in $build/fuzz-work/)" >&2
  exit 1
fi
echo "fuzz/run.sh: no crash in ${targets[*]}"
