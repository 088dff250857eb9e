#!/usr/bin/env bash
# `atoll compile --shard I/N` and `atoll merge` (issue 37): three shards of
# a batch of four graphs write the same objects, headers and (merged)
# manifest as one compile of the whole batch; a missing shard or a mixed
# directory is an error.
# Usage: check_compile_shards.sh ATOLL BATCH WORK_DIR
set -euo pipefail
atoll=$1 batch=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
"$atoll" compile "$batch" -o "$work/whole" --quiet > /dev/null
for i in 0 1 2; do "$atoll" compile "$batch" --shard $i/3 -o "$work/sharded" --quiet > /dev/null; done
"$atoll" merge "$work/sharded" > "$work/merge.txt"
grep -q "of 4 graphs" "$work/merge.txt" || fail "merge: $(cat "$work/merge.txt")"
cmp "$work/whole/manifest.json" "$work/sharded/manifest.json" || fail "the merged manifest differs"
for f in "$work"/whole/*.o "$work"/whole/*.h; do
  cmp -s "$f" "$work/sharded/$(basename "$f")" || fail "$(basename "$f") differs between the shards and the whole batch"
done
python3 - "$work/whole/report.json" "$work/sharded/report.json" <<'PY' || fail "the merged report lists other graphs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert [g["name"] for g in a["graphs"]] == [g["name"] for g in b["graphs"]]
assert all(g["status"] == "ok" for g in b["graphs"])
PY
rm "$work/sharded/report-1-of-3.json"
if "$atoll" merge "$work/sharded" 2> "$work/missing.txt"; then fail "merge without shard 1 succeeded"; fi
grep -q "report-1-of-3.json is missing" "$work/missing.txt" || fail "missing shard: $(cat "$work/missing.txt")"
"$atoll" compile "$batch" --shard 0/2 -o "$work/sharded" --quiet > /dev/null
if "$atoll" merge "$work/sharded" 2> "$work/mixed.txt"; then fail "merge of 2 and 3 shards succeeded"; fi
grep -q "shards of" "$work/mixed.txt" || fail "mixed shards: $(cat "$work/mixed.txt")"
echo "compile shards: ok"
