#!/usr/bin/env bash
# Runs a Python test with the test environment's interpreter: PYTHON SCRIPT ARGS...
# Exits 77 (ctest: skipped) only when ATOLL_SKIP_PYTHON_TESTS=1; otherwise a
# missing interpreter or module fails the test with what is missing.
python=$1
shift
if [ ! -x "$python" ] || ! "$python" -c "import numpy, onnx, onnxruntime" 2>/dev/null; then
  if [ "${ATOLL_SKIP_PYTHON_TESTS:-0}" = 1 ]; then
    echo "skipped: ATOLL_SKIP_PYTHON_TESTS=1 and no Python with numpy, onnx and onnxruntime at $python"
    exit 77
  fi
  echo "error: $python is not a Python with numpy, onnx and onnxruntime;" \
       "scripts/test.sh makes one (python3 -m venv build/venv; pip install numpy onnx onnxruntime)" >&2
  exit 1
fi
exec "$python" "$@"
