#!/bin/bash
# deploy/nhc/cudiag.nhc under a harness of our own: LBNL NHC is neither in Debian 12 nor on
# PyPI, so `die` here is a double that records what NHC's die would (its status and message),
# following NHC's contract (https://github.com/mej/nhc, README "Writing Checks").
# This machine (no GPU) fails with the Slurm health check's message; a healthy machine (the
# dgx-h100 fixture with the driver doubles, tests/fleet/healthy_machine.py) passes.
# Usage: nhc_check_test.sh CUDIAG SOURCE_DIR DOUBLES_DIR
set -euo pipefail
cudiag=$1
src=$2
doubles=$3
. "$src/tests/fleet/lib.sh"
need python3

died=""
die() { died="$1|$2"; }   # double of NHC's die STATUS MESSAGE
export CUDIAG=$cudiag
. "$src/deploy/nhc/cudiag.nhc"

report=$("$cudiag" --timeout 5 check --format json --no-frameworks || true)
expected=$(python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
first = r.get("first_failing_layer") or ""
errs = [f for f in r["findings"] if f["severity"] == "error"]
mine = [f for f in errs if f["layer"] == first] or errs
print("cudiag: %s: %s" % (first or "unknown", mine[0]["id"]) if errs else "")' <<<"$report")
[ -n "$expected" ] || fail "this machine has no error finding (no GPU here?)"

set +e
check_cudiag --timeout 5
rc=$?
set -e
[ "$rc" = 1 ] || fail "check_cudiag returned $rc on this machine, not 1"
[ "$died" = "1|$expected" ] || fail "die was called with '$died', not '1|$expected'"
ok "this machine: die 1 \"$expected\""

d=$(mktemp -d -t cudiag-nhc.XXXXXX)
trap 'rm -rf "$d"' EXIT
python3 "$src/tests/fleet/healthy_machine.py" "$doubles" "$src/tests/fixtures/machines/dgx-h100" "$d/healthy"
died=""
check_cudiag --root "$d/healthy" --timeout 5 || fail "check_cudiag failed on the healthy machine: $died"
[ -z "$died" ] || fail "die called on the healthy machine: $died"
ok "healthy machine: check_cudiag returns 0"

died=""
CUDIAG=/nonexistent/cudiag check_cudiag && fail "check_cudiag passed without a cudiag binary"
[ "$died" = "1|cudiag: check could not run (exit 127)" ] || fail "missing binary: die '$died'"
ok "missing binary: $died"
