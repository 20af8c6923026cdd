# Sourced by install-and-run.sh and test.sh: one CMake configuration for both,
# so the README's second command reuses the first one's build (a different
# flag, e.g. a compiler launcher, would make ninja recompile everything).
#   cudiag_configure BUILD_DIR [EXTRA CMAKE FLAGS...]
cudiag_configure() {
  local dir=$1
  shift
  local flags=(-G Ninja)
  # ccache, when present, makes rebuilds cheap (CI on the same machine, second runs).
  if command -v ccache >/dev/null 2>&1; then
    export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
    flags+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S . -B "$dir" "${flags[@]}" "$@" >/dev/null
}
