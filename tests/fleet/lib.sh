# Shared by the tests in tests/fleet/: messages, a required-program check, a free
# loopback port, and a bounded wait.
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
# The real programs are the point of these tests: missing ones fail, naming the package
# (scripts/install-deps.sh installs them).
need() {
  local p
  for p in "$@"; do
    command -v "$p" >/dev/null 2>&1 || fail "$p is not installed (scripts/install-deps.sh installs it)"
  done
}
# A TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
# wait_for SECONDS COMMAND...: run COMMAND every 50 ms until it succeeds; 1 on timeout.
wait_for() {
  local limit=$1
  shift
  local end=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$end" ] || return 1
    sleep 0.05
  done
}
