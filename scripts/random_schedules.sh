#!/usr/bin/env bash
# A random-schedule campaign: the "random legal schedule changes" sweep of
# atoll_tests (tests/unit/src/ops/random_schedules_test.cpp) with more
# variants per operator case and other seeds than CI runs. Each failure
# prints its seed and case; replay one with
#   scripts/random_schedules.sh --seed SEED --per-case 1 --match 'CASE'
# Usage: scripts/random_schedules.sh [--build DIR] [--seed N] [--per-case N]
#        [--match TEXT] [--rounds N]
# --rounds runs that many consecutive seed ranges (seed, seed + cases, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build seed=$(date +%s) per_case=20 match="" rounds=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --per-case) per_case=$2; shift 2 ;;
    --match) match=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "random_schedules.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
tests="$build/tests/atoll_tests"
[ -x "$tests" ] || { echo "random_schedules.sh: $tests is missing; build first" >&2; exit 2; }
status=0
for ((r = 0; r < rounds; r++)); do
  s=$((seed + r * 100000))
  echo "round $((r + 1))/$rounds: seed $s, $per_case per case${match:+, cases matching '$match'}"
  ATOLL_RANDOM_SCHEDULES_SEED=$s ATOLL_RANDOM_SCHEDULES_PER_CASE=$per_case ATOLL_RANDOM_SCHEDULES_MATCH=$match \
    "$tests" -tc="random legal schedule changes*" --success=false || status=1
done
exit $status
