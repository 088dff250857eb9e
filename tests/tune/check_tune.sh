#!/usr/bin/env bash
# The tuner end to end (docs/tuning.md), on tests/tune/tune_small.json: the
# space and its keys, a tuning run and its records, a second run that finds
# everything in the records, the records applied by run and explain,
# injected crashes, hangs and wrong results recorded without stopping the
# search, and two shards that split the graphs. Measurements are real (A/B
# in a child process) but nothing asserts a speed.
# Usage: check_tune.sh ATOLL WORK_DIR
set -euo pipefail
atoll=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
batch=$here/tune_small.json
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
count() { grep -c "$1" "$2" || true; }

# 1. The space: gemm_a and gemm_b are one computation under other names.
"$atoll" explain "$batch" --graph gemm_a --stage space > space_a.txt
"$atoll" explain "$batch" --graph gemm_b --stage space > space_b.txt
key_a=$(sed -n 's/^cluster mm (key \([0-9a-f]*\)).*/\1/p' space_a.txt)
key_b=$(sed -n 's/^cluster prod (key \([0-9a-f]*\)).*/\1/p' space_b.txt)
[ -n "$key_a" ] && [ "$key_a" = "$key_b" ] || fail "keys of gemm_a/mm and gemm_b/prod: '$key_a' '$key_b'"
grep -q 'band0/cache_tile\[2\]' space_a.txt || fail "no cache tile knob in: $(cat space_a.txt)"

# 2. A short greedy run: every measurement is a record; gemm_b's cluster is
# gemm_a's (one key), so it is tuned once.
"$atoll" tune "$batch" --budget 4 --records db.jsonl --report tune1.json --quiet
[ -s db.jsonl ] || fail "no records written"
lines1=$(wc -l < db.jsonl)
[ "$(count '"graph":"gemm_b"' db.jsonl)" = 0 ] || fail "gemm_b tuned although its cluster is gemm_a's"
grep -q '"graph":"dwconv"' db.jsonl || fail "dwconv not tuned"
"$atoll" db stats db.jsonl > stats1.txt
grep -q "^records: $lines1" stats1.txt || fail "db stats: $(cat stats1.txt)"

# 3. The same run again measures nothing new.
"$atoll" tune "$batch" --budget 4 --records db.jsonl --report tune2.json > tune2.txt
[ "$(wc -l < db.jsonl)" = "$lines1" ] || fail "the second run measured again: $(cat tune2.txt)"
grep -q "(0 measured" tune2.txt || fail "second run: $(cat tune2.txt)"

# 4. Records applied without measuring: a record made by hand (this
# machine's name pinned) with a point that is not the default.
export ATOLL_TUNE_MACHINE=check-tune-machine
printf '{"v":1,"key":"%s","graph":"gemm_a","cluster":"mm","target":"cpu","machine":"check-tune-machine","knobs":{"band0/cache_tile[0]":"24","band0/cache_tile[1]":"64","band0/cache_tile[2]":"32","band0/unroll":"2","fuse_bands":"true","pack":"false","scheduler":"isl"},"status":"ok","ms":1,"default_ms":2,"ratio":2.0,"verified":"reference","strategy":"greedy","time":"2026-12-07T00:00:00Z","seconds":1}\n' \
  "$key_a" > hand.jsonl
"$atoll" run "$batch" --records hand.jsonl --verify --report run.json > run.txt
grep -q "3/3 verified" run.txt || fail "run --records: $(cat run.txt)"
python3 - run.json <<'PY' || fail "apply_tuning did not apply the hand-made record"
import json, sys
r = json.load(open(sys.argv[1]))
changed = {g["name"]: [p["changed"] for p in g["passes"] if p["name"] == "apply_tuning"][0] for g in r["graphs"]}
assert changed["gemm_a"] >= 1 and changed["gemm_b"] >= 1 and changed["dwconv"] == 0, changed
PY
"$atoll" explain "$batch" --graph gemm_b --stage apply_tuning --records hand.jsonl > tuned.txt
grep -q "tuned (key $key_a): band0/cache_tile\[0\]=24,.*band0/unroll=2" tuned.txt || fail "explain --records: $(cat tuned.txt)"
# A record of another machine is not applied.
sed 's/check-tune-machine/another-machine/' hand.jsonl > other.jsonl
"$atoll" explain "$batch" --graph gemm_b --stage apply_tuning --records other.jsonl > untuned.txt
! grep -q "tuned (key" untuned.txt || fail "a record of another machine was applied"
unset ATOLL_TUNE_MACHINE

# 5. Injected faults (a test-only hook of the worker): each is a record, the
# search goes on, and the tuner exits 0.
ATOLL_TUNE_INJECT=crash=0.2,wrong=0.2 "$atoll" tune "$batch" --graph gemm_a --strategy random --seed 3 \
  --trials 24 --budget 600 --timeout 60 --records faults.jsonl --quiet > faults.txt
for s in crash wrong ok; do
  [ "$(count "\"status\":\"$s\"" faults.jsonl)" -gt 0 ] || fail "no '$s' record among: $("$atoll" db stats faults.jsonl)"
done
# A hang: the worker is killed at the timeout, and the next point goes on.
ATOLL_TUNE_INJECT=hang=1 "$atoll" tune "$batch" --graph gemm_a --trials 2 --timeout 3 --records hang.jsonl --quiet > hang.txt
[ "$(count '"status":"timeout"' hang.jsonl)" = 2 ] || fail "hangs: $(cat hang.txt hang.jsonl)"
grep -q "24 trials" faults.txt || fail "the search stopped early: $(cat faults.txt)"

# 6. Shards split the clusters by key, disjoint, and together cover them;
# GNU parallel runs them (scripts/tune_parallel.sh) when it is installed.
"$atoll" tune "$batch" --shard 0/2 --trials 2 --records s0.jsonl --quiet > /dev/null
"$atoll" tune "$batch" --shard 1/2 --trials 2 --records s1.jsonl --quiet > /dev/null
keys() { grep -o '"key":"[0-9a-f]*"' "$@" | sed 's/.*"key"://' | sort -u; }
all=$(keys db.jsonl | tr '\n' ' ')
[ "$(cat s0.jsonl s1.jsonl | grep -o '"key":"[0-9a-f]*"' | sed 's/.*"key"://' | sort -u | tr '\n' ' ')" = "$all" ] ||
  fail "the shards' keys are not all keys ($all)"
[ -z "$(comm -12 <(keys s0.jsonl) <(keys s1.jsonl))" ] || fail "a key in both shards"
if command -v parallel > /dev/null; then
  bash "$here/../../scripts/tune_parallel.sh" "$batch" 2 par --atoll "$atoll" -- --trials 2 > /dev/null
  [ "$(awk 'NR > 1 && $7 == 0' par/joblog | wc -l)" = 2 ] || fail "GNU parallel's job log: $(cat par/joblog)"
  [ "$(keys par/records.jsonl | tr '\n' ' ')" = "$all" ] || fail "tune_parallel.sh merged: $(keys par/records.jsonl)"
fi
# The Slurm array script, run as one array task would be (no Slurm here).
for i in 0 1; do
  SLURM_ARRAY_TASK_ID=$i ATOLL="$atoll" bash "$here/../../scripts/tune_slurm.sbatch" "$batch" 2 slurm --trials 1 > /dev/null
done
[ "$(cat slurm/records-0.jsonl slurm/records-1.jsonl | grep -o '"key":"[0-9a-f]*"' | sed 's/.*"key"://' | sort -u | tr '\n' ' ')" = "$all" ] ||
  fail "the Slurm script's shards: $(ls slurm)"
grep -q '^#SBATCH --exclusive' "$here/../../scripts/tune_slurm.sbatch" || fail "the Slurm script lost --exclusive"

# 7. Model mode (the analytical cost model, no timing): deterministic for a
# seed, and two shards merged give the records of one run; an external
# model over a pipe takes its place with --model-cmd.
strip() { sed -E 's/,"time":"[^"]*"//; s/,"seconds":[-0-9.e+]*//' "$@" | sort; }
for run in 1 2; do
  "$atoll" tune "$batch" --measure model --strategy random --seed 7 --trials 10 --records model$run.jsonl --quiet > /dev/null
done
[ "$(count '"verified":"model"' model1.jsonl)" -ge 10 ] || fail "model records: $(head -2 model1.jsonl)"
diff <(strip model1.jsonl) <(strip model2.jsonl) > /dev/null || fail "model mode is not deterministic"
for i in 0 1; do
  "$atoll" tune "$batch" --measure model --strategy random --seed 7 --trials 10 --shard $i/2 --records mshard.jsonl --quiet > /dev/null
done
diff <(strip model1.jsonl) <(strip mshard.jsonl) > /dev/null || fail "two model shards differ from one run"
cat > model.py <<'PY'
import json, sys
for line in sys.stdin:
    f = json.loads(line)["features"]
    print(json.dumps({"ms": 1.0 / (1.0 + f.get("gemm.mr", 0) + f.get("window.rows", 0))}), flush=True)
PY
"$atoll" tune "$batch" --graph gemm_a --measure model --model-cmd "python3 $work/model.py" --trials 30 \
  --records external.jsonl --report external.json --quiet > external.txt
[ "$(count '"status":"ok"' external.jsonl)" -ge 7 ] || fail "external model: $(cat external.txt; head -3 external.jsonl)"
grep -q '"band0/unroll": *"8"' external.json || fail "the external model's best (most rows) was not chosen: $(cat external.json)"

# 8. The evolutionary strategy: children ranked by the cost model, the best
# ranked measured.
"$atoll" tune "$batch" --graph gemm_a --strategy evolutionary --seed 5 --trials 4 --records evo.jsonl --quiet > evo.txt
[ "$(count '"verified":"model"' evo.jsonl)" -ge 4 ] || fail "evolutionary: no model rankings: $(cat evo.txt)"
grep -q "gemm_a/mm: 4 trials" evo.txt || fail "evolutionary: $(cat evo.txt)"

echo "tune: ok ($lines1 records, faults: $(tr '\n' ' ' < faults.txt))"
