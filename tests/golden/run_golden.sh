#!/usr/bin/env bash
# Runs `atoll explain` as the first line of a .check file says and pipes the
# output into FileCheck. Usage: run_golden.sh ATOLL FILECHECK CASE.check
set -euo pipefail
atoll=$1 filecheck=$2 check=$3
batch=${check%.check}.json
# %S is the directory of the .check file (a records file beside it).
args=$(head -n 1 "$check" | sed -n 's/^; RUN: //p' | sed "s|%S|$(dirname "$check")|g")
prefix=$(sed -n 's/^; PREFIX: //p' "$check" | head -n 1)
# shellcheck disable=SC2086
"$atoll" explain "$batch" $args | "$filecheck" "$check" ${prefix:+--check-prefix=$prefix}
