#!/usr/bin/env bash
# scripts/release-archive.sh on the wheel portable_wheel built: the archive
# holds the wheel's own binary, the licences and the docs, runs from where it
# is unpacked, and is reproducible (two runs, one checksum).
# Usage: release_archive_test.sh SOURCE_DIR WHEEL_WORK_DIR
set -euo pipefail
src=${1:?usage: release_archive_test.sh SOURCE_DIR WHEEL_WORK_DIR}
work=${2:?}
fail() { echo "release_archive_test: $*" >&2; exit 1; }
wheel=$(echo "$work"/dist/cudiag-*.whl)
[ -f "$wheel" ] || fail "no wheel in $work/dist (portable_wheel builds it)"
out="$work/release"
rm -rf "$out" "$out-2"
archive=$(bash "$src/scripts/release-archive.sh" "$wheel" "$out")
bash "$src/scripts/release-archive.sh" "$wheel" "$out-2" > /dev/null
(cd "$out" && sha256sum -c --quiet "$(basename "$archive").sha256") || fail "checksum file does not match"
cmp -s "$archive" "$out-2/$(basename "$archive")" || fail "two runs gave different archives"
name=$(basename "$archive" .tar.gz)
list=$(tar -tzf "$archive")
for f in cudiag THIRD-PARTY-NOTICES.txt README.md docs/install.md; do
  echo "$list" | grep -x "$name/$f" >/dev/null || fail "$f is not in the archive"
done
mkdir -p "$out/unpacked"
tar -C "$out/unpacked" -xzf "$archive"
cmp -s "$out/unpacked/$name/cudiag" "$work/venv/bin/cudiag" || fail "the archive's binary is not the wheel's"
"$out/unpacked/$name/cudiag" --version | grep '^cudiag ' >/dev/null || fail "the unpacked binary does not run"
grep -q 'libc++' "$out/unpacked/$name/THIRD-PARTY-NOTICES.txt" || fail "the notices lack libc++"
echo "release_archive_test: $(basename "$archive") ($(( $(stat -c %s "$archive") / 1024 )) KiB) ok"
