#!/bin/bash
# deploy/slurm/cudiag-healthcheck against a real one-node Slurm 22.05 (Debian 12: slurmctld,
# slurmd, slurm-client, munge) on localhost, started and stopped here on free ports:
#   1. this machine (no GPU): the health check drains the node with Reason
#      "cudiag: <first failing layer>: <finding id>", as `cudiag check --format json` names them;
#   2. a healthy machine (--root: the fixture dgx-h100 with the driver doubles, tests/fleet/healthy_machine.py,
#      since no GPU can exist here): it resumes;
#   3. a node drained by a person stays drained, even with a healthy stack;
#   4. one check at a time: slurmd starts one every HealthCheckInterval whether or not the last has
#      finished (seen here: checks under ASan overlapped, piled up and drained a healthy node), so a
#      check that finds another running leaves the node to it, and cudiag does not hold the lock.
# Needs root (slurmd runs the health check as root) and munged (started if not running).
# Usage: slurm_healthcheck_test.sh CUDIAG SOURCE_DIR DOUBLES_DIR
set -euo pipefail
cudiag=$1
src=$2
doubles=$3
. "$src/tests/fleet/lib.sh"
need slurmctld slurmd scontrol sinfo munge unmunge munged python3
[ "$(id -u)" = 0 ] || fail "needs root: slurmd runs HealthCheckProgram as root"

d=$(mktemp -d -t cudiag-slurm.XXXXXX)
chmod 755 "$d"
mkdir -p "$d"/{state,spool,log}
export SLURM_CONF=$d/slurm.conf
started_munge=0
cleanup() {
  local status=$? pids=() f pid
  set +e
  # Read the pid files before the shutdown: the daemons remove them as they exit, so reading
  # afterwards races their exit (CI once lost that race and failed a passing test).
  for f in slurmd slurmctld; do
    pid=$(cat "$d/$f.pid" 2>/dev/null) && [ -n "$pid" ] && pids+=("$pid")
  done
  scontrol shutdown >/dev/null 2>&1
  for pid in "${pids[@]}"; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$pid" 2>/dev/null
  done
  if [ "$started_munge" = 1 ]; then
    pid=$(cat /run/munge/munged.pid 2>/dev/null) && kill "$pid" 2>/dev/null
  fi
  rm -rf "$d"
  exit "$status"
}
trap cleanup EXIT

# What the health check must write on this machine.
set +e
"$cudiag" --timeout 5 check --format json --no-frameworks >"$d/report.json"
set -e
expected=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
first = r.get("first_failing_layer") or ""
errs = [f for f in r["findings"] if f["severity"] == "error"]
mine = [f for f in errs if f["layer"] == first] or errs
print("cudiag: %s: %s" % (first or "unknown", mine[0]["id"]) if errs else "")' "$d/report.json")
[ -n "$expected" ] || fail "this machine has no error finding; the drain test needs one (no GPU here?)"
healthy_root=$d/healthy
python3 "$src/tests/fleet/healthy_machine.py" "$doubles" "$src/tests/fixtures/machines/dgx-h100" "$healthy_root"
"$cudiag" --root "$healthy_root" --timeout 15 check --no-frameworks >/dev/null ||
  fail "the machine $healthy_root is not healthy (cudiag check exits non-zero)"

# slurmd runs the health check with its own environment; this wrapper gives it the test's
# SLURM_CONF and, while $d/HEALTHY exists, the healthy fixture as cudiag's root.
cat >"$d/hc.sh" <<EOF
#!/bin/bash
export SLURM_CONF=$SLURM_CONF CUDIAG=$cudiag CUDIAG_HEALTHCHECK_TIMEOUT=30 CUDIAG_HEALTHCHECK_LOCK=$d/hc.lock
if [ -e $d/HEALTHY ]; then export CUDIAG_ARGS="--root $healthy_root --timeout 15"; else export CUDIAG_ARGS="--timeout 5"; fi
exec $src/deploy/slurm/cudiag-healthcheck
EOF
chmod 755 "$d/hc.sh"
ctl_port=$(free_port)
d_port=$(free_port)
cat >"$SLURM_CONF" <<EOF
ClusterName=cudiagtest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
AuthType=auth/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SelectType=select/cons_tres
ReturnToService=2
HealthCheckProgram=$d/hc.sh
HealthCheckInterval=1
HealthCheckNodeState=ANY
NodeName=localhost CPUs=$(nproc) RealMemory=500 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF

if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
  install -d -o munge -g munge -m 0755 /run/munge
  runuser -u munge -- /usr/sbin/munged
  started_munge=1
  wait_for 5 sh -c 'munge -n </dev/null | unmunge' || fail "munged did not start"
fi
t0=$SECONDS
/usr/sbin/slurmctld -c
wait_for 10 sh -c 'scontrol ping | grep -q UP' || fail "slurmctld did not start: $(cat "$d/log/slurmctld.log")"
/usr/sbin/slurmd -N localhost

node() { sinfo -h -N -n localhost -o '%T|%E' | head -n 1; }
wait_for 20 sh -c "sinfo -h -N -n localhost -o '%T|%E' | grep -qxF 'drained|$expected'" ||
  fail "not drained with '$expected': $(node); $(grep -i health "$d/log/slurmd.log" | tail -3)"
ok "drained $((SECONDS - t0)) s after start: $(node)"

touch "$d/HEALTHY"
t1=$SECONDS
wait_for 20 sh -c "sinfo -h -N -n localhost -o '%T' | grep -qx idle" || fail "not resumed: $(node)"
ok "resumed $((SECONDS - t1)) s after the stack became healthy: $(node)"

# A person's drain: the healthy check must leave it alone.
scontrol update NodeName=localhost State=DRAIN Reason="maintenance by ops"
sleep 2.5  # over two health-check intervals with a healthy stack (which resumes only its own drains)
[ "$(node)" = "drained|maintenance by ops" ] || fail "a healthy check undid a person's drain: $(node)"
rm "$d/HEALTHY"
sleep 2.5  # and with the broken one (which must not overwrite the person's reason)
[ "$(node)" = "drained|maintenance by ops" ] || fail "a failing check rewrote a person's drain: $(node)"
ok "a person's drain is left as it is: $(node)"

# 4. A slow cudiag double holds the first check while a second one starts; the checks ask about a node
# that does not exist, so a finished one changes nothing (and sinfo answers at once while Slurm runs).
cat >"$d/slow-cudiag" <<EOF
#!/bin/bash
if [ -e /proc/self/fd/9 ]; then touch $d/cudiag-holds-lock; fi
touch $d/slow-started
sleep 3
EOF
chmod 755 "$d/slow-cudiag"
hc_alone() { SLURMD_NODENAME=nosuchnode CUDIAG=$d/slow-cudiag CUDIAG_HEALTHCHECK_LOCK=$d/hc-alone.lock "$src/deploy/slurm/cudiag-healthcheck"; }
hc_alone 2>/dev/null &
first=$!
wait_for 10 test -e "$d/slow-started" || fail "the first check did not start cudiag"
rm "$d/slow-started"
t=$SECONDS
second=$(hc_alone 2>&1) || fail "the second check failed while the first ran: $second"
[ $((SECONDS - t)) -lt 2 ] && [ ! -e "$d/slow-started" ] && [[ "$second" == *"another check is running"* ]] ||
  fail "a second check ran beside the first ($((SECONDS - t)) s): $second"
[ ! -e "$d/cudiag-holds-lock" ] || fail "cudiag inherited the check's lock (a stuck child would stop every later check)"
wait "$first"
hc_alone 2>/dev/null && [ -e "$d/slow-started" ] || fail "the lock was not freed when the first check ended"
ok "one check at a time: a second check left the node to the running one; the lock is freed when it ends"
