#!/usr/bin/env bash
# Shards `atoll tune` over GNU parallel: N shards (disjoint, deterministic:
# `--shard i/N` takes the clusters whose key mod N is i), one measuring job
# per host at a time (measurements are one-thread timings and must not share
# a core), a job log that `--resume` reads to rerun only the shards that
# failed or did not run, then one merged, compacted records file.
#
# usage: scripts/tune_parallel.sh BATCH.json N OUT_DIR [--hosts FILE] [--resume]
#                                 [--atoll PATH] [-- TUNE_OPTIONS...]
#   --hosts FILE   GNU parallel's --sshloginfile (one host a line, "1/host"
#                  for one job there); without it every shard runs here, one
#                  at a time. Each host needs atoll and the batch at the
#                  same paths (a shared file system).
#   --resume       rerun only the shards the job log does not show as done.
#   TUNE_OPTIONS   passed to each `atoll tune` (--budget 60, --strategy ...).
# Output: OUT_DIR/records-I.jsonl per shard, OUT_DIR/report-I.json,
# OUT_DIR/joblog, and OUT_DIR/records.jsonl (all shards, compacted).
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,18p' "$0" >&2; exit 2; }
batch=$(realpath "$1") shards=$2 out=$3
shift 3
hosts="" resume="" atoll=${ATOLL:-atoll}
while [ $# -gt 0 ]; do
  case $1 in
    --hosts) hosts=$2; shift 2 ;;
    --resume) resume=--resume-failed; shift ;;
    --atoll) atoll=$(realpath "$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "tune_parallel.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "tune_parallel.sh: N must be a positive integer" >&2; exit 2; }
command -v parallel >/dev/null || { echo "tune_parallel.sh: GNU parallel is not installed" >&2; exit 1; }
mkdir -p "$out"
out=$(realpath "$out")
where=(-j1)
[ -n "$hosts" ] && where=(--sshloginfile "$hosts")
# shellcheck disable=SC2016
parallel --will-cite "${where[@]}" --joblog "$out/joblog" $resume --halt never \
  "$atoll" tune "$batch" --shard {}/"$shards" --records "$out/records-{}.jsonl" \
  --report "$out/report-{}.json" --quiet "$@" ::: $(seq 0 $((shards - 1)))
status=$?
# Merging is concatenation; compacting keeps the latest record of each point.
cat "$out"/records-*.jsonl > "$out/records.jsonl" 2>/dev/null || : > "$out/records.jsonl"
[ -s "$out/records.jsonl" ] && "$atoll" db compact "$out/records.jsonl" > /dev/null
exit $status
