#!/usr/bin/env bash
# Checks that two atoll binaries print the same SCoP, dependences,
# schedule, loop AST, LLVM IR and C for every graph of the given batches
# (default: the samples, tests/data/random_graphs.json and batch50.json):
# a refactoring that must not change behaviour is checked with the binaries
# of the commits before and after it.
#   scripts/compare_binaries.sh OLD_ATOLL NEW_ATOLL [BATCH.json ...]
# Prints one line per difference and a count; exits 1 when any differ.
set -uo pipefail
old=$1 new=$2
shift 2
cd "$(dirname "$0")/.."
batches=("$@")
[ ${#batches[@]} -eq 0 ] && batches=(samples/*.json tests/data/random_graphs.json tests/data/batch50.json)
stages=(scop deps schedule ast llvm c)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
checked=0 differ=0
for batch in "${batches[@]}"; do
  for graph in $(python3 -c "import json,sys; print(' '.join(g['name'] for g in json.load(open(sys.argv[1]))['graphs']))" "$batch"); do
    for stage in "${stages[@]}"; do
      "$old" explain "$batch" --graph "$graph" --stage "$stage" >"$work/old" 2>&1; a=$?
      "$new" explain "$batch" --graph "$graph" --stage "$stage" >"$work/new" 2>&1; b=$?
      checked=$((checked + 1))
      if [ $a -ne $b ] || ! cmp -s "$work/old" "$work/new"; then
        differ=$((differ + 1))
        echo "differ: $batch graph $graph stage $stage (exit $a / $b)"
      fi
    done
  done
done
echo "$checked outputs compared, $differ differ"
[ $differ -eq 0 ]
