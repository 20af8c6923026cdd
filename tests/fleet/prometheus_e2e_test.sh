#!/bin/bash
# End to end against the real programs (Debian 12: prometheus 2.42, prometheus-node-exporter 1.5):
# `cudiag check --format prometheus -o DIR/cudiag.prom` on this machine, linted by
# `promtool check metrics`, served by node_exporter's textfile collector on 127.0.0.1,
# scraped by Prometheus (with deploy/prometheus/cudiag.rules.yml loaded) on 127.0.0.1,
# and checked over Prometheus's HTTP API: the series is queryable and the alert for
# this machine's error layer fires. Ports are free ones; everything started is stopped.
# Usage: prometheus_e2e_test.sh CUDIAG SOURCE_DIR
set -euo pipefail
cudiag=$1
src=$2
. "$src/tests/fleet/lib.sh"
need promtool prometheus prometheus-node-exporter curl python3

d=$(mktemp -d -t cudiag-prom.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$d"
}
trap cleanup EXIT
mkdir -p "$d/textfile" "$d/data"

# The report, once as JSON (what the assertions expect) and once as the textfile.
"$cudiag" --timeout 5 report --format json --no-frameworks -o "$d/report.json" || true
set +e
"$cudiag" --timeout 5 check --format prometheus --no-frameworks -o "$d/textfile/cudiag.prom"
rc=$?
set -e
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "cudiag check --format prometheus exited $rc"
[ -s "$d/textfile/cudiag.prom" ] || fail "no cudiag.prom written"
leftover=$(find "$d/textfile" -mindepth 1 ! -name cudiag.prom)
[ -z "$leftover" ] || fail "temporary files left beside cudiag.prom: $leftover"

lint=$(promtool check metrics <"$d/textfile/cudiag.prom" 2>&1) || fail "promtool check metrics: $lint"
[ -z "$lint" ] || fail "promtool check metrics complains: $lint"
grep -q '^# TYPE cudiag_layer_status gauge$' "$d/textfile/cudiag.prom" || fail "no cudiag_layer_status"
if grep -Eq '^cudiag_[a-z_]+(\{[^}]*\})? [^ ]+ [0-9]+$' "$d/textfile/cudiag.prom"; then
  fail "a sample carries a timestamp (the textfile collector would skip the file)"
fi
ok "promtool check metrics: clean"

# What this machine's report says the metrics must show.
error_layer=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
bad = [l for l, s in r["layer_status"].items() if s == "error"]
print(r.get("first_failing_layer") or (bad[0] if bad else ""))' "$d/report.json")
driver=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
v = r.get("kernel_driver", {}).get("version", {}).get("value") or r.get("nvml", {}).get("driver_version", {}).get("value") \
    or r.get("driver_api", {}).get("library_version", {}).get("value") or ""
print(v)' "$d/report.json")
[ -n "$error_layer" ] || fail "this machine has no error layer; the alert test needs one (no GPU here?)"

ne_port=$(free_port)
"$(command -v prometheus-node-exporter)" --web.listen-address="127.0.0.1:$ne_port" --collector.disable-defaults \
  --collector.textfile --collector.textfile.directory="$d/textfile" >"$d/ne.log" 2>&1 &
pids+=($!)
wait_for 10 curl -sf "http://127.0.0.1:$ne_port/metrics" -o /dev/null || fail "node_exporter did not answer: $(cat "$d/ne.log")"
scrape=$(curl -sf "http://127.0.0.1:$ne_port/metrics")
grep -qx 'node_textfile_scrape_error 0' <<<"$scrape" || fail "node_textfile_scrape_error is not 0: $(grep node_textfile <<<"$scrape")"
grep -qx "cudiag_layer_status{layer=\"$error_layer\"} 2" <<<"$scrape" || fail "node_exporter does not serve cudiag_layer_status for $error_layer"
ok "node_exporter serves the file, node_textfile_scrape_error 0"

pr_port=$(free_port)
cat >"$d/prometheus.yml" <<EOF
global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: ["$src/deploy/prometheus/cudiag.rules.yml"]
scrape_configs:
  - job_name: node
    static_configs: [{targets: ['127.0.0.1:$ne_port']}]
EOF
promtool check config "$d/prometheus.yml" >/dev/null || fail "promtool check config"
prometheus --config.file="$d/prometheus.yml" --storage.tsdb.path="$d/data" \
  --web.listen-address="127.0.0.1:$pr_port" >"$d/prom.log" 2>&1 &
pids+=($!)
api="http://127.0.0.1:$pr_port/api/v1"
wait_for 10 curl -sf "http://127.0.0.1:$pr_port/-/ready" -o /dev/null || fail "prometheus not ready: $(tail -5 "$d/prom.log")"
# A fresh data directory makes the first sample queryable only after ~6 s.
alerts() { curl -sf "$api/alerts"; }
firing() {
  alerts | python3 -c '
import json, sys
a = json.load(sys.stdin)["data"]["alerts"]
sys.exit(0 if any(x["labels"].get("alertname") == "CudiagLayerError" and x["labels"].get("layer") == sys.argv[1]
                  and x["state"] == "firing" for x in a) else 1)' "$error_layer"
}
wait_for 30 firing || fail "CudiagLayerError for $error_layer never fired: $(alerts)"
ok "Prometheus: alert CudiagLayerError{layer=\"$error_layer\"} firing"

stack=$(curl -sf "$api/query" --data-urlencode 'query=cudiag_stack_info')
python3 -c '
import json, sys
res = json.loads(sys.argv[1])["data"]["result"]
assert len(res) == 1, res
m = res[0]["metric"]
assert m.get("driver", "") == sys.argv[2], (m, sys.argv[2])
assert m.get("job") == "node", m' "$stack" "$driver" || fail "cudiag_stack_info over the API: $stack"
ok "Prometheus: cudiag_stack_info{driver=\"$driver\"} queryable"
