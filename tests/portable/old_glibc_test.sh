#!/usr/bin/env bash
# The portable binary under an older glibc than the build machine's: a
# debootstrapped Debian 11 (bullseye, glibc 2.31) that scripts/install-deps.sh
# makes. Debian's archive no longer serves buster (glibc 2.28: 404 at
# deb.debian.org, 2026-12), so 2.28 itself is vouched for by check_binary.sh's
# symbol versions; this shows the binary does not lean on the build machine's
# glibc 2.36 at run time. The mounts live in a private mount namespace and go
# away with it. Needs root (chroot); exits 77 (skipped) without the chroot.
# Usage: old_glibc_test.sh BINARY [CHROOT]
set -euo pipefail
bin=${1:?usage: old_glibc_test.sh BINARY [CHROOT]}
root=${2:-/opt/cudiag-bullseye}
fail() { echo "old_glibc_test: $*" >&2; exit 1; }
if [ ! -x "$root/usr/bin/ldd" ]; then
  echo "old_glibc_test: no chroot at $root (scripts/install-deps.sh makes it); skipped" >&2
  exit 77
fi
[ "$(id -u)" -eq 0 ] || { echo "old_glibc_test: needs root for chroot; skipped" >&2; exit 77; }
[ -x "$bin" ] || fail "$bin: not an executable file"
glibc=$(chroot "$root" ldd --version | awk 'NR == 1 {print $NF}')
host_glibc=$(ldd --version | awk 'NR == 1 {print $NF}')
[ "$(printf '%s\n%s\n' "$glibc" "$host_glibc" | sort -V | head -1)" = "$glibc" ] && [ "$glibc" != "$host_glibc" ] ||
  fail "the chroot's glibc $glibc is not older than this machine's $host_glibc"

dir=$(mktemp -d "$root/tmp/cudiag-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cp "$bin" "$dir/cudiag"
inner=${dir#"$root"}
# Inside: /proc (the binary re-executes itself for its child probes), /sys, /dev.
run() {
  unshare --mount --propagation private -- sh -c '
    r=$1; shift
    mount -t proc proc "$r/proc" && mount --rbind /sys "$r/sys" && mount --rbind /dev "$r/dev" &&
    exec chroot "$r" "$@"' sh "$root" "$@"
}
version=$(run "$inner/cudiag" --version) || fail "--version failed under glibc $glibc"
echo "under glibc $glibc: $version"
set +e
run "$inner/cudiag" report --format json --no-frameworks > "$dir/report.json"
rc=$?
set -e
[ "$rc" -le 1 ] || fail "report exited $rc under glibc $glibc"
/usr/bin/python3 - "$dir/report.json" "$glibc" <<'PY' || fail "the report under glibc $glibc is wrong"
import json, sys
r = json.load(open(sys.argv[1]))
for k in ("host", "kernel_driver", "nvml", "driver_api", "cuda_runtime", "libraries", "findings"):
    assert k in r, f"missing layer {k}"
# The host layer reads the chroot's glibc: the binary really ran on it.
assert sys.argv[2] in json.dumps(r["host"]), f"host layer does not name glibc {sys.argv[2]}"
PY
run "$inner/cudiag" kb driver-for 12.8 > /dev/null || fail "kb driver-for failed under glibc $glibc"
echo "old_glibc_test: the portable binary runs under glibc $glibc (report exit $rc)"
