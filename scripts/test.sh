#!/usr/bin/env bash
# Quick start 2: installs the dependencies, builds everything in Release and
# runs every test; then builds with AddressSanitizer + UndefinedBehaviorSanitizer
# (LeakSanitizer on) and runs the tests again.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall time goes to stderr (and a summary at the end), so that
# CI's log shows where its time goes.
phase_start=$SECONDS phases=""
phase() {  # phase NAME: ends the running phase, starts NAME
  local now=$SECONDS
  [ -n "${phase_name:-}" ] && phases+="${phase_name} $((now - phase_start))s; " &&
    echo "test.sh: ${phase_name} took $((now - phase_start)) s" >&2
  phase_name=$1 phase_start=$now
}
phase install-deps
scripts/install-deps.sh
jobs=$(nproc)
# ccache (when present) keys objects by paths relative to the checkout, so a
# fresh clone elsewhere reuses what an earlier build of the same sources made.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
phase release-build
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
# The Python tests' venv (build/venv: numpy, onnx, onnxruntime from PyPI,
# python/requirements-test.txt); the ctest tests labelled `python` fail
# without it.
phase python-venv
cmake --build build --target python_venv
phase release-tests
ctest --test-dir build -j"$jobs" --output-on-failure
if [ "${ATOLL_SKIP_SANITIZERS:-0}" != 1 ]; then
  phase sanitizer-build
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATOLL_SANITIZE=ON \
    -DATOLL_TEST_PYTHON="$PWD/build/venv/bin/python" >/dev/null
  cmake --build build-asan -j"$jobs"
  phase sanitizer-tests
  # LSan: PoCL's and NVRTC's libraries keep memory until exit (tests/gpu/lsan.supp).
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    LSAN_OPTIONS="suppressions=$PWD/tests/gpu/lsan.supp" \
    ctest --test-dir build-asan -j"$jobs" --output-on-failure ${ATOLL_SANITIZER_LABELS:+-L "$ATOLL_SANITIZER_LABELS"}
fi
phase done
echo "test.sh: ${phases}total ${SECONDS}s" >&2
echo "all tests passed"
