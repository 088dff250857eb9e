#!/usr/bin/env bash
# Runs one test file of the Python package (ctest python.*) with the test
# venv's python: run_test.sh VENV PACKAGE_DIR TEST_FILE.
# The venv comes from `cmake --build build --target python_venv` (which
# scripts/test.sh builds before ctest). Without it, or without numpy in it,
# the test fails; ATOLL_SKIP_PYTHON_TESTS=1 skips it instead (exit 77).
set -euo pipefail
venv=$(realpath -m "$1") package_dir=$(realpath -m "$2") test_file=$(realpath -m "$3")
if [ "${ATOLL_SKIP_PYTHON_TESTS:-0}" = 1 ]; then
  echo "skipped: ATOLL_SKIP_PYTHON_TESTS=1"
  exit 77
fi
if [ ! -x "$venv/bin/python" ]; then
  echo "error: no test venv at $venv: run 'cmake --build <build> --target python_venv'" \
       "(scripts/test.sh does), or set ATOLL_SKIP_PYTHON_TESTS=1 to skip the Python tests" >&2
  exit 1
fi
if ! "$venv/bin/python" -c "import numpy" 2>/dev/null; then
  echo "error: numpy is missing from $venv: run 'cmake --build <build> --target python_venv'" >&2
  exit 1
fi
cd "$(dirname "$test_file")"
export PYTHONPATH="$package_dir${PYTHONPATH:+:$PYTHONPATH}"
exec "$venv/bin/python" -m unittest -v "$(basename "$test_file" .py)"
