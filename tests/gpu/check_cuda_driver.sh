#!/usr/bin/env bash
# `run --target cuda --verify` on a machine without a usable CUDA device:
# the launches run and verify as the OpenCL twin, and report.json says why
# CUDA did not run them. With the toolkit's stub library as libcuda.so.1 the
# reason is "CUDA driver is a stub library"; without any libcuda.so.1 it is
# "no CUDA driver". Without an OpenCL platform, --target opencl fails each
# graph with the reason, exit 1. Exit 77 (skipped) without OpenCL or where a
# real driver is.
# Usage: check_cuda_driver.sh ATOLL BATCH.json WORKDIR
set -uo pipefail
atoll=$1 batch=$2 work=$3
rm -rf "$work" && mkdir -p "$work/lib"
run() {  # run LABEL [env...]: the report's text in $work/LABEL.json
  local label=$1; shift
  env "$@" "$atoll" run "$batch" --target cuda --verify --quiet --report "$work/$label.json" >"$work/$label.out" 2>&1
}
run plain
if grep -q "no OpenCL" "$work/plain.out"; then echo "skipped: no OpenCL device"; exit 77; fi
if ! grep -q '"cuda": "no CUDA driver (libcuda.so.1 not found)"' "$work/plain.json"; then
  if grep -q '"cuda": "a CUDA device is present' "$work/plain.json"; then echo "skipped: a CUDA driver is here"; exit 77; fi
  echo "expected 'no CUDA driver' in report.json:" >&2; cat "$work/plain.out" "$work/plain.json" >&2; exit 1
fi
grep -q '"verified_through": "opencl twin"' "$work/plain.json" || { echo "no verified_through" >&2; exit 1; }
grep -q '"passed": true' "$work/plain.json" || { echo "the OpenCL twin did not verify" >&2; exit 1; }
# No OpenCL platform either (the ICD loader pointed at an empty vendor list):
# each graph fails with the reason and the exit status is 1.
env OCL_ICD_VENDORS="$work/no-vendors" "$atoll" run "$batch" --target opencl --verify --quiet >"$work/nocl.out" 2>&1
rc=$?
if [[ $rc -ne 1 ]] || ! grep -q "cannot run OpenCL kernels: no OpenCL platform" "$work/nocl.out"; then
  echo "expected exit 1 and 'no OpenCL platform' without an OpenCL platform (exit $rc):" >&2
  cat "$work/nocl.out" >&2
  exit 1
fi
stub=""
for s in /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so; do
  [[ -f $s ]] && stub=$s && break
done
if [[ -n $stub ]]; then
  ln -s "$stub" "$work/lib/libcuda.so.1"
  run stub LD_LIBRARY_PATH="$work/lib"
  grep -q '"cuda": "CUDA driver is a stub library (cuInit returned 34)"' "$work/stub.json" || {
    echo "expected the stub library's message:" >&2; cat "$work/stub.out" "$work/stub.json" >&2; exit 1; }
  echo "no driver and stub driver both reported; the OpenCL twin verified"
else
  echo "no driver reported; the OpenCL twin verified (no stub library to try)"
fi
