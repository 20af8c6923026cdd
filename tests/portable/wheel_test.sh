#!/usr/bin/env bash
# The wheel, end to end (issue 16): builds it from the repository with the
# pinned tools, checks its tag against `auditwheel show` and its binary with
# check_binary.sh, installs it into a fresh venv (offline), and runs the CLI,
# `python -m cudiag` and the Python API (api_test.py) on this machine.
# Usage: wheel_test.sh SOURCE_DIR WORK_DIR TOOLS_PYTHON
#   TOOLS_PYTHON: a python with scikit-build-core, ziglang and auditwheel
#   (scripts/install-deps.sh makes /opt/cudiag-wheel-tools).
set -euo pipefail
src=${1:?usage: wheel_test.sh SOURCE_DIR WORK_DIR TOOLS_PYTHON}
work=${2:?}
tools_py=${3:?}
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "wheel_test: $*" >&2; exit 1; }
[ -x "$tools_py" ] || fail "$tools_py is missing: run scripts/install-deps.sh (it makes the wheel tools venv)"
tools_bin=$(dirname "$tools_py")
rm -rf "$work"
mkdir -p "$work/dist"

# The same build the README's `pip wheel .` does (pyproject.toml, build-wheel/
# in the source tree, so a second build only relinks); without build
# isolation, so no network is needed and ccache sees stable paths.
start=$(date +%s)
export CCACHE_BASEDIR="$src" CCACHE_NOHASHDIR=1
"$tools_py" -m pip wheel "$src" --no-deps --no-build-isolation -w "$work/dist" -q \
  > "$work/pip-wheel.log" 2>&1 || { tail -40 "$work/pip-wheel.log" >&2; fail "pip wheel failed"; }
echo "pip wheel: $(( $(date +%s) - start )) s"
wheels=("$work"/dist/cudiag-*.whl)
[ "${#wheels[@]}" -eq 1 ] && [ -f "${wheels[0]}" ] || fail "expected one wheel in $work/dist"
wheel=${wheels[0]}
echo "wheel: $(basename "$wheel") ($(( $(stat -c %s "$wheel") / 1024 )) KiB)"
tag=$(basename "$wheel" .whl | cut -d- -f3-)
# py3-none-<platforms>, the platforms joined by dots (a PEP 600 tag and its
# legacy alias, e.g. manylinux2014_x86_64.manylinux_2_17_x86_64).
case "$tag" in py3-none-*) ;; *) fail "tag $tag is not py3-none-…" ;; esac
plat=$(echo "${tag#py3-none-}" | tr '.' '\n' | grep -E '^manylinux_2_[0-9]+_x86_64$' || true)
[ "$(echo "$plat" | wc -w)" -eq 1 ] || fail "tag $tag has no (or several) manylinux_2_X_x86_64 platforms"
floor=$(echo "$plat" | sed 's/manylinux_\([0-9]*\)_\([0-9]*\)_x86_64/\1.\2/')
[ "$(printf '%s\n2.28\n' "$floor" | sort -V | tail -1)" = "2.28" ] || fail "tag $plat is newer than manylinux_2_28"

# auditwheel reads the binary in .data/scripts/ and says which tag it allows;
# the wheel's own tag must be that one.
show=$(PATH="$tools_bin:$PATH" "$tools_bin/auditwheel" show "$wheel" 2>&1) || { echo "$show" >&2; fail "auditwheel show failed"; }
echo "$show" | tr '\n' ' ' | grep "consistent with the following platform tag: \"$plat\"" >/dev/null || {
  echo "$show" >&2
  fail "auditwheel does not agree with the tag $plat"
}
echo "auditwheel show: consistent with $plat"

# The binary inside the wheel: NEEDED, symbol versions, and it runs.
mkdir -p "$work/unzipped"
"$tools_py" -m zipfile -e "$wheel" "$work/unzipped"
bin=$(echo "$work"/unzipped/cudiag-*.data/scripts/cudiag)
[ -f "$bin" ] || fail "no cudiag-*.data/scripts/cudiag in the wheel"
chmod +x "$bin"  # zipfile -e does not keep modes; pip does
bash "$here/check_binary.sh" "$bin" "$floor"

# A fresh venv from the system python (not the tools one), offline.
/usr/bin/python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --no-index --no-deps --disable-pip-version-check "$wheel"
[ -x "$work/venv/bin/cudiag" ] || fail "the venv has no bin/cudiag"
cmp -s "$bin" "$work/venv/bin/cudiag" || fail "venv/bin/cudiag is not the wheel's binary"
export CUDIAG_CACHE_DIR=
"$work/venv/bin/cudiag" --version
set +e
"$work/venv/bin/cudiag" check --no-frameworks > "$work/check.txt"
rc_cli=$?
"$work/venv/bin/python" -m cudiag check --no-frameworks > "$work/check-m.txt"
rc_m=$?
set -e
[ "$rc_cli" -eq 1 ] || fail "cudiag check exited $rc_cli (expected 1: no GPU here)"
[ "$rc_m" -eq "$rc_cli" ] || fail "python -m cudiag check exited $rc_m, cudiag check $rc_cli"
grep -q 'First failing layer' "$work/check-m.txt" || fail "python -m cudiag check printed no report"
(cd "$work" && "$work/venv/bin/python" "$here/api_test.py")

# pip install --target (no venv): the package finds T/bin/cudiag.
"$work/venv/bin/pip" install -q --no-index --no-deps --disable-pip-version-check --target "$work/target" "$wheel"
found=$(cd "$work" && PYTHONPATH="$work/target" /usr/bin/python3 -c 'import cudiag; print(cudiag.binary_path())')
[ "$found" = "$work/target/bin/cudiag" ] || fail "--target install: binary_path() = $found"
echo "wheel_test: all checks passed"
