#!/bin/bash
# deploy/kubernetes/ offline: every resource the kustomization lists passes
# `kubernetes-validate --strict` (PyPI; bundled schemas, no cluster), a manifest with a
# misspelt field does not (so the validation really checks), and the DaemonSet keeps its
# promises (tests/fleet/check_daemonset.py). Then `cudiag check --format nfd -o` on this
# machine writes a feature file nfd-master would accept (tests/fleet/check_nfd.py).
# Usage: kubernetes_test.sh CUDIAG SOURCE_DIR
set -euo pipefail
cudiag=$1
src=$2
. "$src/tests/fleet/lib.sh"
need kubernetes-validate python3
k8s=$src/deploy/kubernetes

d=$(mktemp -d -t cudiag-k8s.XXXXXX)
trap 'rm -rf "$d"' EXIT

mapfile -t resources < <(python3 -c '
import sys, yaml
k = yaml.safe_load(open(sys.argv[1]))
for r in k["resources"]: print(r)' "$k8s/kustomization.yaml")
[ "${#resources[@]}" -ge 2 ] || fail "kustomization lists ${#resources[@]} resources"
files=()
for r in "${resources[@]}"; do files+=("$k8s/$r"); done
out=$(kubernetes-validate --strict "${files[@]}" 2>&1) || fail "kubernetes-validate --strict: $out"
grep -q "WARN\|ERROR" <<<"$out" && fail "kubernetes-validate warns: $out"
ok "kubernetes-validate --strict: ${resources[*]}"

sed 's/imagePullPolicy:/imagePullPolice:/' "$k8s/daemonset.yaml" >"$d/bad.yaml"
if kubernetes-validate --strict "$d/bad.yaml" >/dev/null 2>&1; then fail "a misspelt field passed --strict"; fi
ok "a misspelt field fails --strict"

python3 "$src/tests/fleet/check_daemonset.py" "$k8s/daemonset.yaml"

mkdir "$d/features.d"
set +e
"$cudiag" --timeout 5 check --format nfd --no-frameworks -o "$d/features.d/cudiag"
rc=$?
set -e
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "cudiag check --format nfd exited $rc"
"$cudiag" --timeout 5 report --format json --no-frameworks -o "$d/report.json" || true
leftover=$(find "$d/features.d" -mindepth 1 ! -name cudiag)
[ -z "$leftover" ] || fail "temporary files left in features.d: $leftover"
python3 "$src/tests/fleet/check_nfd.py" "$d/features.d/cudiag" "$d/report.json"
