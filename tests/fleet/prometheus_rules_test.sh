#!/bin/bash
# deploy/prometheus/cudiag.rules.yml: `promtool check rules` and its unit tests
# (tests/fleet/cudiag.rules_test.yml, `promtool test rules`, no server).
# Usage: prometheus_rules_test.sh SOURCE_DIR
set -euo pipefail
src=$1
. "$src/tests/fleet/lib.sh"
need promtool
promtool check rules "$src/deploy/prometheus/cudiag.rules.yml" >/dev/null || fail "promtool check rules"
cd "$src/tests/fleet"
out=$(promtool test rules cudiag.rules_test.yml 2>&1) || fail "promtool test rules: $out"
ok "promtool test rules: $(tr -s ' \n' ' ' <<<"$out")"
