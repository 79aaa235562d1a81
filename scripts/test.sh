#!/usr/bin/env bash
# Every test of mpimatch, as CI runs them (make test):
#  1. Release build, warnings as errors: C tests (ctest), then Python tests.
#  2. Debug build (-O0), warnings as errors: the unit tests unoptimized.
#  3. ASan + UBSan build: the C tests, and the Python tests against its tools.
#  4. TSan build: the thread-safety tests, mpimatch-threads (real threads, every engine) and
#     the provider under threads (shared memory and TCP).
# Ends (scripts/test_summary.py) with the skipped tests and why, the total time
# and the ten slowest tests; fails when a test skipped for something
# scripts/setup.sh --dev installs; a run over 30 minutes is reported (OVER BUDGET).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
reports=$(mktemp -d "${TMPDIR:-/tmp}/mpimatch-test.XXXXXX")
finish() { # runs on every exit, so a failed run still shows its time and skips
  local rc=$?
  trap - EXIT
  echo "== summary"
  python3 scripts/test_summary.py --elapsed "$(( $(date +%s) - start ))" \
    "ctest:build=$reports/build.xml" "ctest:build-asan=$reports/build-asan.xml" \
    "ctest:build-tsan=$reports/build-tsan.xml" "pytest=$reports/pytest.xml" "pytest:asan-provider=$reports/pytest-asan.xml" || { [ "$rc" -ne 0 ] || rc=1; }
  rm -rf "$reports"
  exit "$rc"
}
trap finish EXIT
scripts/setup.sh --dev
jobs=$(nproc)
run_build() { # dir, cmake args...
  local dir=$1; shift
  cmake -S . -B "$dir" -DMPIMATCH_WERROR=ON "$@" >/dev/null
  # Warnings are errors (-Werror): a failed build shows its log and stops.
  cmake --build "$dir" -j "$jobs" >"$dir/build.log" 2>&1 || { cat "$dir/build.log"; return 1; }
}

echo "== release build (-Wall -Wextra -Werror)"
run_build build -DCMAKE_BUILD_TYPE=Release
ctest --test-dir build --output-on-failure -j "$jobs" --output-junit "$reports/build.xml"

echo "== Debug build (-O0): warning-free, and the unit tests unoptimized"
# An unoptimized build is what a developer debugging an engine makes; it broke once
# (always_inline through enter.h's function pointers, src/core/compiler.h).
run_build build-debug -DCMAKE_BUILD_TYPE=Debug
ctest --test-dir build-debug --output-on-failure -j "$jobs" \
  -R '^(test_semantics|test_ftable|test_ftable_nosse2|test_primitives|test_walk|test_collide|test_pnp_col|test_kmeans|test_enomem|test_adaptive_simd|stream\.test_.*)$'

echo "== install: pkg-config and CMake package consumers"
tests/install/run.sh build

echo "== ASan + UBSan build"
run_build build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPIMATCH_SANITIZE=address,undefined
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" --output-junit "$reports/build-asan.xml"

echo "== TSan build (thread-safe engines, the provider under threads)"
run_build build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPIMATCH_SANITIZE=thread
TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build-tsan --output-on-failure -R '^(test_threads|test_concurrent|test_concurrent_stress|threads\.cli|provider_threads|provider_threads_tcp)$' \
  --output-junit "$reports/build-tsan.xml"

echo "== Python tests against the ASan + UBSan tools"
MPIMATCH_REQUIRE_TOOLS=1 MPIMATCH_BIN_DIR=$PWD/build-asan/bin ASAN_OPTIONS=detect_leaks=1 \
  .venv/bin/python -m pytest -q -p no:cacheprovider -rs --junitxml="$reports/pytest.xml" \
  -o junit_duration_report=total tests/python

echo "== conformance core subset against the ASan + UBSan provider (default engine)"
# The provider of build-asan loaded into Open MPI programs that are not instrumented:
# the sanitizer runtime preloaded into every rank (python/mpimatch/mpistack.py).
if [ -f build-asan/lib/libmpimatch-fi.so ]; then
  MPIMATCH_REQUIRE_TOOLS=1 MPIMATCH_CONFORMANCE_SANITIZED=1 \
    MPIMATCH_PROVIDER_LIB=$PWD/build-asan/lib/libmpimatch-fi.so \
    MPIMATCH_PROVIDER_PRELOAD="$(gcc -print-file-name=libasan.so)" \
    .venv/bin/python -m pytest -q -p no:cacheprovider -rs --junitxml="$reports/pytest-asan.xml" \
    -o junit_duration_report=total tests/python/test_conformance.py -k test_conformance
fi
