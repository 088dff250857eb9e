#!/usr/bin/env bash
# The GPU check for a machine that has a GPU but cannot build Atoll (issue 35).
#
#   scripts/device_check_cuda.sh prepare DIR   (here: needs atoll built in build/)
#     For each sample: compile --target cuda:sm_90 (the .cu, the cubin NVRTC
#     made, manifest.json, GRAPH_gpu.json), compile --target opencl (the .cl),
#     and run --target cpu --verify --dump (inputs, weights and the outputs
#     the CPU code computed, checked against the reference interpreter).
#   scripts/device_check_cuda.sh run DIR [cuda|opencl]   (there, or here as a dry run)
#     Runs every graph from DIR through the CUDA driver (default) or OpenCL
#     with scripts/device_check_cuda.py (Python's standard library only),
#     outputs NaN-poisoned first, compares them with the dump, then times
#     each graph (median of 20 runs after the check); then times the kernels
#     of bench/gpu/timing.json at large shapes against cuBLAS and a
#     device-to-device copy of the same bytes (the OpenCL dry run: small
#     shapes, no baseline).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: device_check_cuda.sh prepare|run DIR [cuda|opencl]}
dir=${2:?usage: device_check_cuda.sh prepare|run DIR [cuda|opencl]}
case $mode in
  prepare)
    atoll=${ATOLL:-build/src/atoll}
    rm -rf "$dir" && mkdir -p "$dir"
    for batch in samples/*.json; do
      name=$(basename "$batch" .json)
      "$atoll" compile "$batch" --target cuda:sm_90 -o "$dir/$name/code" --quiet >/dev/null
      "$atoll" compile "$batch" --target opencl -o "$dir/$name/opencl" --quiet >/dev/null
      "$atoll" run "$batch" --target cpu --verify --dump "$dir/$name/data" --report "$dir/$name/report.json" \
        --quiet >/dev/null
      ls "$dir/$name/code/"*.cubin >/dev/null 2>&1 || { echo "$name: no cubin (is NVRTC installed?)" >&2; exit 1; }
    done
    # The timed kernels (bench/gpu/timing.json): checked at small parameter
    # values like the samples, timed there at large ones on inputs made on the device.
    cp bench/gpu/timing.json "$dir/timing.json"
    for batch in bench/gpu/*.json; do
      name=$(basename "$batch" .json)
      [[ $name == timing ]] && continue
      params=$(python3 -c "import json,sys; t=json.load(open('bench/gpu/timing.json'))
print(' '.join('--param %s=%d' % kv for g in t['graphs'] if g['batch'] == sys.argv[1] for kv in g['check_params'].items()))" "$name")
      # shellcheck disable=SC2086
      "$atoll" compile "$batch" --target cuda:sm_90 -o "$dir/$name/code" --quiet >/dev/null
      "$atoll" compile "$batch" --target opencl -o "$dir/$name/opencl" --quiet >/dev/null
      # shellcheck disable=SC2086
      "$atoll" run "$batch" --target cpu --verify $params --dump "$dir/$name/data" --report "$dir/$name/report.json" \
        --quiet >/dev/null
    done
    du -sh "$dir"
    ;;
  run)
    python3 scripts/device_check_cuda.py --backend "${3:-cuda}" --graphs "$dir" --bench 20 --timing "$dir/timing.json"
    ;;
  *) echo "usage: device_check_cuda.sh prepare|run DIR [cuda|opencl]" >&2; exit 2 ;;
esac
