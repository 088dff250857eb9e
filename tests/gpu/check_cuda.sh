#!/usr/bin/env bash
# `atoll compile --target cuda:sm_XX` of a batch for sm_80 and sm_90: every
# graph compiles, NVRTC builds every launch, and ptxas reports no stack frame,
# no spills, and registers x threads within a multiprocessor's 64K. Exit 77 (ctest: skipped) when NVRTC is not installed.
# Usage: check_cuda.sh ATOLL BATCH.json WORKDIR [SMS]   (SMS default "80 90")
set -euo pipefail
atoll=$1 batch=$2 work=$3 sms=${4:-80 90}
for sm in $sms; do
  out=$work/sm_$sm
  rm -rf "$out"
  "$atoll" compile "$batch" --target "cuda:sm_$sm" -o "$out" --quiet
  manifests=("$out"/*_gpu.json)
  if grep -q '"nvrtc": "not found' "${manifests[@]}"; then
    echo "skipped: NVRTC not found"
    exit 77
  fi
  launches=$(grep -c '"registers"' "${manifests[@]}" | awk -F: '{s += $NF} END {print s}')
  expected=$(grep -c '"one_thread"' "${manifests[@]}" | awk -F: '{s += $NF} END {print s}')
  if [[ "$launches" != "$expected" ]]; then
    echo "sm_$sm: ptxas reported $launches of $expected launches" >&2
    exit 1
  fi
  if grep -nE '"(stack_bytes|spill_store_bytes|spill_load_bytes)": [1-9]' "${manifests[@]}"; then
    echo "sm_$sm: a launch has a stack frame or spills (above)" >&2
    exit 1
  fi
  for m in "${manifests[@]}"; do
    [[ -s "${m%_gpu.json}.cubin" ]] || { echo "sm_$sm: no cubin beside $m" >&2; exit 1; }
    # Registers x threads of a block within the 64K registers of a multiprocessor.
    awk '/"block"/ {b = 1; t = 1; next}
         b && /[0-9]+/ {gsub(/[^0-9]/, ""); t *= $0; if (++n == 3) {b = 0; n = 0}}
         /"registers"/ {gsub(/[^0-9]/, ""); if ($0 * t > 65536) {print FILENAME ": " $0 " registers x " t " threads"; bad = 1}}
         END {exit bad}' "$m" || { echo "sm_$sm: a launch needs more registers than a multiprocessor has" >&2; exit 1; }
  done
  echo "sm_$sm: ${#manifests[@]} graphs, $launches launches, no stack frame, no spills"
done
