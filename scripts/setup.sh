#!/usr/bin/env bash
# Install what mpimatch needs on a Debian machine and build it.
#   scripts/setup.sh [--dev]
# - apt packages (only those missing): a C compiler, make, cmake, pkg-config,
#   python3 with venv; with --dev everything the whole test suite needs, so
#   that no test is skipped for a missing package (scripts/test.sh fails on
#   such a skip): Open MPI and MPICH side by side (the tracer is built and
#   tested for each), libfabric (headers and fi_info, for the libfabric
#   provider and its tests). Open MPI stays the default mpicc/mpirun;
# - a Python virtual environment in .venv with the pinned requirements
#   (requirements.txt; with --dev also requirements-dev.txt) and the mpimatch
#   package installed in editable mode;
# - the C library and tools, Release build in build/.
# Safe to run again: every step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."
dev=0
[ "${1:-}" = "--dev" ] && dev=1

log() { printf '== %s\n' "$*" >&2; }

need_apt=()
command -v cc >/dev/null 2>&1 || need_apt+=(gcc libc6-dev)
command -v make >/dev/null 2>&1 || need_apt+=(make)
command -v cmake >/dev/null 2>&1 || need_apt+=(cmake)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
if ! command -v python3 >/dev/null 2>&1; then
  need_apt+=(python3 python3-venv python3-pip)
elif ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  need_apt+=(python3-venv python3-pip)
fi
# --dev: both MPIs for the tracer's tests (tests/python/test_trace.py,
# test_persistent.py, test_coll_oracle.py), libfabric for the provider,
# mpi4py (Debian's, linked to Open MPI) for its own tests in the conformance suite.
# iproute2 (ip netns) for the provider's tests across virtual hosts (tests/python/test_hosts.py);
# lammps and hpcc, the applications the provider must run (test_apps_provider.py, test_hosts.py).
dev_pkgs=(openmpi-bin libopenmpi-dev mpich libmpich-dev libfabric-dev libfabric-bin python3-mpi4py
          iproute2 lammps hpcc)
if [ $dev = 1 ]; then
  for pkg in "${dev_pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || need_apt+=("$pkg")
  done
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  log "installing Debian packages: ${need_apt[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${need_apt[@]}"
  # Installing MPICH beside Open MPI must not make it the default: Debian's
  # 'mpi' and 'mpirun' alternatives prefer Open MPI in auto mode; put them
  # back if something left them elsewhere.
  if [ $dev = 1 ] && [ -x /usr/bin/mpicc.openmpi ]; then
    for alt in mpi:/usr/bin/mpicc.openmpi mpirun:/usr/bin/mpirun.openmpi; do
      name=${alt%%:*} target=${alt#*:}
      now=$(update-alternatives --query "$name" 2>/dev/null | sed -n 's/^Value: //p')
      if [ -x "$target" ] && [ -n "$now" ] && [ "$now" != "$target" ]; then
        log "making Open MPI the default '$name' alternative again (was $now)"
        $sudo update-alternatives --set "$name" "$target" >/dev/null
      fi
    done
  fi
fi

stamp=.venv/.mpimatch-reqs
want="$(cat requirements.txt; [ $dev = 1 ] && cat requirements-dev.txt; cat python/pyproject.toml)"
if [ ! -x .venv/bin/python ]; then
  log "creating the Python virtual environment in .venv"
  python3 -m venv .venv
fi
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  log "installing Python requirements"
  .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
  [ $dev = 1 ] && .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -e python
  printf '%s' "$want" > "$stamp"
fi

log "building the C library and tools (build/)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
