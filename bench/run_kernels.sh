#!/usr/bin/env bash
# One command for the kernel benchmarks: installs OpenBLAS and oneDNN if missing
# (apt-get; benchmarks only, never the regular build or CI), builds a Release tree
# with -DATOLL_BUILD_BENCH=ON and runs atoll_kernel_bench, which prints the tables.
#
# usage: bench/run_kernels.sh [--quick] [--threads 1,2] [--filter gemm/1024,conv/r50]
#                             [--build-dir build-bench] [--jobs 2] [--json FILE]
#                             [--no-install] [-- more atoll_kernel_bench options]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${ATOLL_BENCH_BUILD_DIR:-$ROOT/build-bench}"
JOBS=2
INSTALL=1
JSON=""
BENCH_ARGS=()

usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) BENCH_ARGS+=(--quick); shift ;;
    --threads|--filter|--groups|--rounds|--min-time|--compile-reps)
      [[ $# -ge 2 ]] || { echo "run_kernels.sh: $1 needs a value" >&2; exit 2; }
      BENCH_ARGS+=("$1" "$2"); shift 2 ;;
    --build-dir) BUILD_DIR="$2"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    --json) JSON="$2"; shift 2 ;;
    --no-install) INSTALL=0; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; BENCH_ARGS+=("$@"); break ;;
    *) echo "run_kernels.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"

# 1. The peer libraries (Debian/Ubuntu package names).
PKGS=(libopenblas-dev libdnnl-dev)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  if [[ $INSTALL -eq 0 ]] || ! command -v apt-get >/dev/null; then
    echo "run_kernels.sh: missing ${missing[*]}; install them (apt-get install ${missing[*]})" \
         "or let CMake find OpenBLAS/oneDNN elsewhere" >&2
  else
    SUDO=""
    [[ $(id -u) -eq 0 ]] || SUDO="sudo"
    echo "run_kernels.sh: installing ${missing[*]}" >&2
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" ||
      { $SUDO apt-get update && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; }
  fi
fi

# 2. A Release tree with the benchmarks (tests off: they are not needed here).
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DATOLL_BUILD_BENCH=ON -DATOLL_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD_DIR" --target atoll_kernel_bench -j "$JOBS"

# 3. Run. Results: JSON (for bench/results_to_markdown.py) and the printed tables.
COMMIT="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]]; then COMMIT="$COMMIT+dirty"; fi
if [[ -z "$JSON" ]]; then
  mkdir -p "$ROOT/bench/results"
  JSON="$ROOT/bench/results/kernels-$(date -u +%Y%m%d-%H%M%S)-$COMMIT.json"
fi
echo "command: bench/run_kernels.sh ${BENCH_ARGS[*]:-}" 
status=0
"$BUILD_DIR/bench/atoll_kernel_bench" --json "$JSON" --note "commit $COMMIT" ${BENCH_ARGS[@]+"${BENCH_ARGS[@]}"} \
  | tee "${JSON%.json}.txt" || status=$?
exit $status
