#!/usr/bin/env bash
# The release archive: the wheel's portable binary with its licences and docs,
# for containers and machines without Python (docs/install.md).
#   scripts/release-archive.sh WHEEL [OUT_DIR]
#   -> OUT_DIR/cudiag-VERSION-linux-x86_64.tar.gz and .tar.gz.sha256 (OUT_DIR defaults to dist/)
# The archive is reproducible: sorted names, root-owned, the commit's time.
set -euo pipefail
wheel=${1:?usage: release-archive.sh WHEEL [OUT_DIR]}
out=${2:-dist}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$wheel" ] || { echo "release-archive.sh: $wheel: no such wheel" >&2; exit 2; }
version=$(basename "$wheel" | cut -d- -f2)
name="cudiag-$version-linux-x86_64"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
python3 -m zipfile -e "$wheel" "$stage/wheel"
bin=$(echo "$stage"/wheel/cudiag-*.data/scripts/cudiag)
notices=$(echo "$stage"/wheel/cudiag-*.dist-info/licenses/THIRD-PARTY-NOTICES.txt)
[ -f "$bin" ] || { echo "release-archive.sh: $wheel has no cudiag-*.data/scripts/cudiag" >&2; exit 2; }
[ -f "$notices" ] || { echo "release-archive.sh: $wheel has no THIRD-PARTY-NOTICES.txt" >&2; exit 2; }

dir="$stage/$name"
mkdir -p "$dir/docs"
install -m 0755 "$bin" "$dir/cudiag"
install -m 0644 "$notices" "$dir/THIRD-PARTY-NOTICES.txt"
[ -f "$root/LICENSE" ] && install -m 0644 "$root/LICENSE" "$dir/LICENSE"
install -m 0644 "$root/README.md" "$dir/README.md"
for doc in install.md ci.md rules.md knowledge-base.md; do
  [ -f "$root/docs/$doc" ] && install -m 0644 "$root/docs/$doc" "$dir/docs/$doc"
done

mtime=$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)
mkdir -p "$out"
tmp="$out/.$name.tar.gz.tmp"
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$mtime" -cf - "$name" | gzip -n -9 > "$tmp"
mv "$tmp" "$out/$name.tar.gz"
(cd "$out" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
echo "$out/$name.tar.gz"
