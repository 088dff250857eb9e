#!/usr/bin/env bash
# Blocks benchmark in one command: Atoll fused vs `fuse: none` vs onnxruntime (bench/blocks/README.md).
#
# Usage: bench/run_blocks.sh [path/to/atoll] [-- options of bench/blocks/bench_blocks.py]
#   Without an atoll path, builds one in Release in build-blocks/ (BUILD_DIR overrides the directory).
#   onnx, onnxruntime and numpy are pip-installed into bench/.venv-blocks only (never by the build or CI);
#   when that fails the Atoll-only figures are still printed.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/bench/.venv-blocks"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-blocks}"

ATOLL=""
if [[ $# -gt 0 && "$1" != "--" && "$1" != -* ]]; then
  ATOLL="$1"
  shift
fi
[[ "${1:-}" == "--" ]] && shift

# Python with onnx + onnxruntime + numpy, in the benchmark's own venv.
PY=python3
if [[ ! -x "$VENV/bin/python" ]]; then
  python3 -m venv "$VENV" || echo "run_blocks: cannot create a venv in $VENV" >&2
  [[ -d "$VENV" ]] && echo '*' > "$VENV/.gitignore"  # keep the venv out of git
fi
if [[ -x "$VENV/bin/python" ]]; then
  PY="$VENV/bin/python"
  if ! "$PY" -c 'import onnx, onnxruntime, numpy' 2>/dev/null; then
    echo "run_blocks: pip install onnx onnxruntime numpy into $VENV" >&2
    if ! "$PY" -m pip install -q onnx onnxruntime numpy >&2; then
      echo "run_blocks: pip could not install onnxruntime: only the Atoll figures will be printed" >&2
      "$PY" -m pip install -q numpy >&2 || true
    fi
  fi
fi

# Atoll, Release.
if [[ -z "$ATOLL" ]]; then
  echo "run_blocks: building atoll (Release) in $BUILD_DIR" >&2
  cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 1
  cmake --build "$BUILD_DIR" -j2 --target atoll >&2 || exit 1
  ATOLL="$BUILD_DIR/src/atoll"
fi
[[ -x "$ATOLL" ]] || { echo "run_blocks: no atoll executable at $ATOLL" >&2; exit 1; }

exec "$PY" "$ROOT/bench/blocks/bench_blocks.py" --atoll "$ATOLL" "$@"
