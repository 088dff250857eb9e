#!/usr/bin/env bash
# The tuner under injected faults (issue 37): N points of a GEMM's space in
# model mode (fast), with crashes, hangs and wrong results injected by the
# worker's test hook; checks that every point is a record and that the
# tuner finished. Run it with a sanitizer build's atoll to check that too.
# usage: scripts/tune_faults.sh ATOLL N [OUT_DIR]
set -euo pipefail
atoll=$1 n=$2 out=${3:-build/tune-faults}
here=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$out" && mkdir -p "$out"
start=$SECONDS
ATOLL_TUNE_INJECT=crash=0.1,hang=0.02,wrong=0.1 "$atoll" tune "$here/tests/tune/tune_small.json" --graph gemm_a \
  --measure model --strategy random --seed 11 --trials "$n" --budget 100000 --timeout 2 \
  --records "$out/records.jsonl" --report "$out/report.json" --quiet > "$out/summary.txt"
"$atoll" db stats "$out/records.jsonl" | sed -n '1,8p'
lines=$(wc -l < "$out/records.jsonl")
trials=$(sed -n 's/.*: \([0-9]*\) trials.*/\1/p' "$out/summary.txt")
echo "$trials points tried, $lines records, $((SECONDS - start)) s"
[ "$trials" = "$n" ] && [ "$lines" -ge "$n" ] || { echo "FAIL: expected $n points and records" >&2; exit 1; }
