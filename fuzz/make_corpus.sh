#!/usr/bin/env bash
# Regenerates the seed corpora in fuzz/corpus/ from the inspector's test
# kernels (tests/inspect/kernels) with this machine's nvcc, and a small
# ld.so.cache with ldconfig. The seeds are committed; run this only to
# refresh them (e.g. for a new CUDA release's layouts). Each seed stays small
# (a few KB) so the fuzzer mutates headers rather than copying payloads.
#   bash fuzz/make_corpus.sh [path/to/nvcc]
set -euo pipefail
cd "$(dirname "$0")/.."
nvcc="${1:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
src=tests/inspect/kernels
out=fuzz/corpus/fuzz_inspect
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out" fuzz/corpus/fuzz_ld_cache

# Bare fatbins: default (ELF raw, PTX zstd), everything zstd, everything LZ4,
# nothing compressed, and the a/f variants.
"$nvcc" -fatbin -gencode arch=compute_75,code=[sm_75,compute_75] $src/k_lib.cu -o "$out/default.fatbin"
"$nvcc" -fatbin -Xfatbin=-compress-all -gencode arch=compute_80,code=[sm_80,compute_80] $src/k_lib.cu -o "$out/zstd.fatbin"
"$nvcc" -fatbin -Xfatbin=-compress-all -compress-mode=speed -gencode arch=compute_80,code=[sm_80,compute_80] \
  $src/k_lib.cu -o "$out/lz4.fatbin"
"$nvcc" -fatbin -no-compress -gencode arch=compute_80,code=[sm_80,compute_80] $src/k_lib.cu -o "$out/none.fatbin"
"$nvcc" -fatbin -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_100f,code=[sm_100f,compute_100f] \
  -gencode arch=compute_100a,code=compute_100a $src/k_lib.cu -o "$out/variants.fatbin"
# A bare cubin, with -lineinfo so the entry identifier and the cubin notes appear.
"$nvcc" -cubin -lineinfo -arch=sm_120 $src/k_lib.cu -o "$out/sm120.cubin"
# Host ELF objects: -rdc (__nv_relfatbin), LTO IR, a device-link object, an ar archive.
"$nvcc" -rdc=true -c -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90 \
  $src/k_rdc_a.cu -o "$tmp/rdc_a.o"
"$nvcc" -rdc=true -c -gencode arch=compute_80,code=sm_80 $src/k_rdc_b.cu -o "$tmp/rdc_b.o"
cp "$tmp/rdc_a.o" "$out/rdc.o"
"$nvcc" -rdc=true -c -gencode arch=compute_90,code=lto_90 $src/k_rdc_b.cu -o "$out/lto.o"
"$nvcc" -dlink -gencode arch=compute_80,code=sm_80 "$tmp/rdc_a.o" "$tmp/rdc_b.o" -o "$out/dlink.o"
(cd "$tmp" && ar rcs libk.a rdc_a.o rdc_b.o)
cp "$tmp/libk.a" "$out/libk.a"
# A stripped shared library without the static runtime: .nv_fatbin, the
# wrapper section, DT_NEEDED, DT_SONAME and DT_RUNPATH in a few KB.
"$nvcc" -shared -Xcompiler -fPIC -cudart=none -gencode arch=compute_75,code=[sm_75,compute_75] \
  -Xlinker -soname=libk.so.1 -Xlinker -rpath='$ORIGIN/../lib' $src/k_lib.cu -o "$tmp/libk.so"
strip "$tmp/libk.so" -o "$out/libk.so"

# ld.so.cache: the cache of a tiny root holding one library, built with
# ldconfig -r so neither /etc nor the host's libraries are involved.
mkdir -p "$tmp/root/etc" "$tmp/root/lib"
cp "$out/libk.so" "$tmp/root/lib/libk.so.1"
: >"$tmp/root/etc/ld.so.conf"
ldconfig -r "$tmp/root"
cp "$tmp/root/etc/ld.so.cache" fuzz/corpus/fuzz_ld_cache/new.cache
ldconfig -c compat -r "$tmp/root"  # the old format followed by the new one
cp "$tmp/root/etc/ld.so.cache" fuzz/corpus/fuzz_ld_cache/compat.cache
ls -l "$out" fuzz/corpus/fuzz_ld_cache
