#!/usr/bin/env bash
# compile --target npu on a batch, then the C files it writes must compile
# alone with `cc -std=c99` against npu_intrin.h (cli.md).
# Usage: check_npu_c.sh ATOLL BATCH WORKDIR INCLUDE_DIR [PROFILE]
set -euo pipefail
atoll=$1 batch=$2 work=$3 include=$4 profile=${5:-ascend-like}
rm -rf "$work" && mkdir -p "$work"
"$atoll" compile "$batch" --target "npu:$profile" -o "$work/out" --quiet
shopt -s nullglob
files=("$work"/out/*_npu.c)
[ ${#files[@]} -gt 0 ] || { echo "no C files written" >&2; exit 1; }
for f in "${files[@]}"; do
  cc -std=c99 -Wall -Wextra -Werror -pedantic -Wno-unused-function -I"$include" -c "$f" -o "${f%.c}.o"
done
echo "${#files[@]} C files compile as C99"
