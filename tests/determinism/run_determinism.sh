#!/usr/bin/env bash
# Same input, same code: compiles a batch three times for each target given
# (default: the CPU targets)
# (its graphs compile concurrently, each in its own isl and LLVM context; the
# third run with --threads 1) and compares every file written but
# report.json (timings) byte for byte: objects, headers, C, constants and
# manifest.json; for cuda and opencl the sources, the cubin and the launch
# manifests.
#   tests/determinism/run_determinism.sh ATOLL BATCH.json WORK_DIR [TARGETS]
set -euo pipefail
atoll=$1 batch=$2 work=$3 targets=${4:-cpu cpu-c}
rm -rf "$work" && mkdir -p "$work"
for target in $targets; do
  "$atoll" compile "$batch" --target "$target" -o "$work/$target.1" --quiet >/dev/null
  "$atoll" compile "$batch" --target "$target" -o "$work/$target.2" --quiet >/dev/null
  "$atoll" compile "$batch" --target "$target" -o "$work/$target.3" --threads 1 --quiet >/dev/null
  diff -r -x report.json "$work/$target.1" "$work/$target.2"
  diff -r -x report.json "$work/$target.1" "$work/$target.3"
  echo "$target: $(find "$work/$target.1" -type f ! -name report.json | wc -l) files identical in three compilations"
done
