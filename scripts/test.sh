#!/usr/bin/env bash
# Quick start 2: installs the dependencies, builds everything in Release and
# runs every test; then builds with AddressSanitizer + UndefinedBehaviorSanitizer
# (LeakSanitizer on) and runs the tests again.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)
# ccache (when present) keys objects by paths relative to the checkout, so a
# fresh clone elsewhere reuses what an earlier build of the same sources made.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
# The Python tests' venv (build/venv: numpy, onnx, onnxruntime from PyPI,
# python/requirements-test.txt); the ctest tests labelled `python` fail
# without it.
cmake --build build --target python_venv
ctest --test-dir build -j"$jobs" --output-on-failure
if [ "${ATOLL_SKIP_SANITIZERS:-0}" != 1 ]; then
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATOLL_SANITIZE=ON \
    -DATOLL_TEST_PYTHON="$PWD/build/venv/bin/python" >/dev/null
  cmake --build build-asan -j"$jobs"
  # LSan: PoCL's and NVRTC's libraries keep memory until exit (tests/gpu/lsan.supp).
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    LSAN_OPTIONS="suppressions=$PWD/tests/gpu/lsan.supp" \
    ctest --test-dir build-asan -j"$jobs" --output-on-failure ${ATOLL_SANITIZER_LABELS:+-L "$ATOLL_SANITIZER_LABELS"}
fi
echo "all tests passed"
