#!/usr/bin/env bash
# Runs a batch through `--target opencl --verify` (PoCL here): every kernel's
# launches against the reference interpreter, outputs NaN-poisoned first.
# Exit 77 (ctest: skipped) when the machine has no OpenCL device.
# Usage: run_opencl.sh ATOLL BATCH.json
set -uo pipefail
atoll=$1 batch=$2
out=$("$atoll" run "$batch" --target opencl --verify --quiet 2>&1)
rc=$?
if [[ $rc -ne 0 ]] && grep -q "cannot run OpenCL kernels: no OpenCL" <<<"$out"; then
  echo "skipped: $(grep -m1 'cannot run OpenCL' <<<"$out")"
  exit 77
fi
printf '%s\n' "$out"
exit $rc
