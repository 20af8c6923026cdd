#!/usr/bin/env bash
# Installs everything cudiag's build and tests need on Debian 12, as root.
# Idempotent: a second run installs nothing new. Besides the build tools and
# libraries, it installs NVIDIA's real 535 user-space driver from Debian's
# non-free component (it installs without a GPU and answers for real), which
# the end-to-end tests use as a real driver layer.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps.sh: run as root (it uses apt-get)" >&2
  exit 2
fi

export DEBIAN_FRONTEND=noninteractive
sources=/etc/apt/sources.list.d/cudiag-nonfree.sources
if ! grep -rqs "non-free" /etc/apt/sources.list /etc/apt/sources.list.d/ ; then
  cat > "$sources" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: contrib non-free non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

packages=(
  build-essential cmake ninja-build ccache pkg-config git python3 python3-pip python3-jsonschema
  libcli11-dev libfmt-dev nlohmann-json3-dev libtomlplusplus-dev liblz4-dev libzstd-dev libzip-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev clang-format
  libcuda1 libnvidia-ml1 nvidia-smi
  # The frameworks tests: a real (CPU-only) PyTorch and venvs for real nvidia-* wheels.
  python3-torch python3-venv
  chromium fonts-dejavu-core
  # Fleet tests (tests/fleet/, docs/fleet.md): the real Prometheus, promtool, node_exporter and a
  # one-node Slurm with munge; no recommends keeps the Slurm install to ~3 MB.
  prometheus prometheus-node-exporter slurmctld slurmd slurm-client munge
  # `cudiag fleet`: simdjson (the JSON parser for many reports), zlib (.json.gz); jq and zstd for bench/fleet_speed.py
  libsimdjson-dev zlib1g-dev jq zstd
  # The portable binary's tests (tests/portable): readelf, and a Debian 11 chroot to run it under glibc 2.31.
  binutils debootstrap
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update -q
  # No recommends: nvidia-smi recommends the DKMS kernel module, which would
  # compile for minutes and is never loaded on a machine without a GPU.
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# cuobjdump 13.x, which the inspector's equality test compares against. The
# wheel has no Python module, only site-packages/nvidia/cu13/bin/cuobjdump, so
# that file is what is checked. Debian 12's python3 is "externally managed"
# (PEP 668): pip refuses without PIP_BREAK_SYSTEM_PACKAGES, and installs the
# wheel into /usr/local/lib/python3.11/dist-packages, where tests/inspect's
# CMake looks for it.
has_wheel_cuobjdump='import importlib.util as u, os, sys
s = u.find_spec("nvidia")
sys.exit(0 if s and any(os.path.isfile(os.path.join(p, "cu13", "bin", "cuobjdump")) for p in s.submodule_search_locations) else 1)'
if ! command -v cuobjdump >/dev/null 2>&1 && ! python3 -c "$has_wheel_cuobjdump" >/dev/null 2>&1; then
  # A failure fails the install (#17): CI must not go green with the cuobjdump comparison skipped.
  if ! PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q --disable-pip-version-check nvidia-cuda-cuobjdump; then
    echo "install-deps.sh: nvidia-cuda-cuobjdump could not be installed (the cuobjdump comparison needs it)" >&2
    exit 1
  fi
fi

# nvml.h (#12): the ctest kb_error_codes_cover_headers checks every nvmlReturn_t code of the real
# header against data/kb/error_codes.json; Debian has no nvml.h, NVIDIA's nvidia-nvml-dev wheel has.
has_nvml_h='import importlib.util as u, glob, os, sys
s = u.find_spec("nvidia")
sys.exit(0 if s and any(glob.glob(os.path.join(p, "cu*", "include", "nvml.h")) for p in s.submodule_search_locations) else 1)'
if ! python3 -c "$has_nvml_h" >/dev/null 2>&1; then
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q --disable-pip-version-check nvidia-nvml-dev==13.5.37 ||
    { echo "install-deps.sh: nvidia-nvml-dev could not be installed (kb_error_codes_cover_headers needs nvml.h)" >&2; exit 1; }
fi

# The real nvidia-* wheels tests/unit/frameworks/real_installs_test.cpp reads
# (#17): installed here, once, into a cached venv, so no test pip-installs
# while it runs and a missing venv is a failed setup, not a skipped test. The
# list is the test's kWheels; a change there needs the marker removed.
wheels_venv="${CUDIAG_TEST_WHEELS_VENV:-/var/cache/cudiag-tests/venv-nvidia-wheels}"
wheels="nvidia-cuda-runtime-cu12==12.9.79 nvidia-cuda-runtime==13.0.96"
if [ "$(cat "$wheels_venv/.installed" 2>/dev/null)" != "$wheels" ]; then
  rm -rf "$wheels_venv"
  mkdir -p "$(dirname "$wheels_venv")"
  /usr/bin/python3 -m venv --without-pip "$wheels_venv"
  # shellcheck disable=SC2086
  /usr/bin/python3 -m pip --python "$wheels_venv/bin/python3" install -q --disable-pip-version-check --no-input $wheels
  echo "$wheels" > "$wheels_venv/.installed"
fi

# kubernetes-validate (tests/fleet/kubernetes_test.sh): Kubernetes JSON schemas bundled, so
# deploy/kubernetes/ validates offline (no cluster, no kubeconform in Debian 12). Pinned.
if ! command -v kubernetes-validate >/dev/null 2>&1; then
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q --disable-pip-version-check kubernetes-validate==1.37.0
fi

# The portable binary and its wheel (tests/portable, docs/install.md): pinned
# PyPI tools in a venv of their own, so Debian's python stays untouched.
# scikit-build-core builds the wheel, ziglang is the compiler (zig c++ against
# glibc 2.28), auditwheel checks the tag; the ctest runs pip without build
# isolation, i.e. offline, with these.
wheel_tools=/opt/cudiag-wheel-tools
wheel_pins=(scikit-build-core==1.1.2 ziglang==0.17.1 auditwheel==6.8.2 build==1.6.1)
if ! "$wheel_tools/bin/python" -c 'import scikit_build_core, ziglang, auditwheel, build' >/dev/null 2>&1; then
  /usr/bin/python3 -m venv "$wheel_tools"
  "$wheel_tools/bin/pip" install -q --disable-pip-version-check "${wheel_pins[@]}"
fi

# Debian 11 (glibc 2.31) as a chroot the portable binary runs in
# (tests/portable/old_glibc_test.sh; ~75 s, 215 MB). Debian 10 (glibc 2.28) is
# no longer served by deb.debian.org. Without it that test is skipped.
old_glibc_root=/opt/cudiag-bullseye
if [ ! -x "$old_glibc_root/usr/bin/ldd" ]; then
  debootstrap --variant=minbase bullseye "$old_glibc_root.tmp" http://deb.debian.org/debian >/dev/null &&
    mv "$old_glibc_root.tmp" "$old_glibc_root" ||
    { rm -rf "$old_glibc_root.tmp"; echo "install-deps.sh: no bullseye chroot; tests/portable/old_glibc_test.sh will skip" >&2; }
fi
