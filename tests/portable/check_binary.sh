#!/usr/bin/env bash
# Checks that a cudiag binary is portable (issue 16):
#   - its NEEDED entries are only glibc's own libraries and libgcc_s,
#   - no symbol version it needs is newer than GLIBC_<floor> (default 2.28),
#   - its ELF interpreter is the standard x86_64 one,
#   - it runs here: --version, and a JSON report with every layer.
# Usage: check_binary.sh BINARY [FLOOR]
set -euo pipefail
bin=${1:?usage: check_binary.sh BINARY [FLOOR]}
floor=${2:-2.28}
fail() { echo "check_binary: $bin: $*" >&2; exit 1; }
[ -x "$bin" ] || fail "not an executable file"

# glibc's libraries (libdl/libpthread/librt are separate files before 2.34)
# and libgcc_s, which every glibc system has. Nothing of C++ (libstdc++,
# libc++), fmt, lz4, zstd or libzip: those are linked in or dlopened.
allowed=" libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 ld-linux-x86-64.so.2 libgcc_s.so.1 "
needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || fail "no NEEDED entries (a static binary could not dlopen the NVIDIA libraries)"
for lib in $needed; do
  case "$allowed" in *" $lib "*) ;; *) fail "NEEDED $lib is not a glibc library";; esac
done
echo "NEEDED: $(echo $needed)"

interp=$(readelf -l "$bin" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
[ "$interp" = "/lib64/ld-linux-x86-64.so.2" ] || fail "interpreter is '$interp'"

# Every versioned dependency (readelf's "Version needs" section): the newest
# GLIBC_ one must not be newer than the floor; no GLIBCXX_/CXXABI_ at all.
versions=$(readelf -V "$bin" | sed -n 's/.*Name: \([A-Z_]*[0-9][0-9.]*\).*/\1/p' | sort -u)
if echo "$versions" | grep -E '^(GLIBCXX|CXXABI)_' >/dev/null; then
  fail "needs libstdc++ symbol versions: $(echo $versions)"
fi
newest=$(echo "$versions" | sed -n 's/^GLIBC_//p' | sort -V | tail -1)
[ -n "$newest" ] || fail "no GLIBC_ symbol versions found"
if [ "$(printf '%s\n%s\n' "$newest" "$floor" | sort -V | tail -1)" != "$floor" ]; then
  offenders=$(objdump -T "$bin" | grep "GLIBC_$newest" | awk '{print $NF}' | tr '\n' ' ')
  fail "needs GLIBC_$newest > $floor (symbols: $offenders)"
fi
echo "newest GLIBC_ version needed: $newest (floor $floor)"

"$bin" --version | grep '^cudiag ' >/dev/null || fail "--version printed no version"
set +e
out=$(CUDIAG_CACHE_DIR= "$bin" report --format json --no-frameworks)
rc=$?
set -e
# 0 or 1: a report (1 = an error finding, as on a machine without a GPU).
[ "$rc" -le 1 ] || fail "report exited with $rc"
layers='import json, sys
r = json.load(sys.stdin)
missing = [k for k in ("host", "kernel_driver", "nvml", "driver_api", "cuda_runtime", "libraries", "findings") if k not in r]
sys.exit(f"missing: {missing}" if missing else 0)'
printf '%s' "$out" | /usr/bin/python3 -c "$layers" || fail "the report lacks a layer"
echo "check_binary: $bin: portable (glibc >= $floor), runs here (report exit $rc)"
