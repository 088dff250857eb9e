#!/usr/bin/env bash
# Polly 19 against `atoll jscop`, for one kernel of samples/loops:
#  1. clang-19 exports the kernel's SCoPs (-polly-export, -polly-optimizer=none,
#     -polly-process-unprofitable: without it Polly generates no code for an
#     imported schedule);
#  2. `atoll jscop --identity` writes every file back byte for byte;
#  3. `atoll jscop` reschedules them, and clang-19 imports every file
#     (-polly-import, without -disable-polly-legality): each file is read and
#     none is refused for changing the dependences;
#  4. the program built with Atoll's schedules prints the checksum of the
#     plain clang -O3 build (1e-9 relative: Polly may reassociate).
# usage: run_polly_roundtrip.sh ATOLL SAMPLES_LOOPS_DIR KERNEL WORK_DIR
set -euo pipefail
atoll=$1 dir=$2 kernel=$3 work=$4/$3
cc=${CC_POLLY:-clang-19}
command -v "$cc" >/dev/null || { echo "FAIL: $cc not found (scripts/install-deps.sh installs clang-19 and Polly)"; exit 1; }
rm -rf "$work"
mkdir -p "$work/in" "$work/identity" "$work/out"
src=$dir/$kernel.c
flags=(-O3 -march=native -I "$dir" -mllvm -polly -mllvm -polly-position=early -mllvm -polly-process-unprofitable
       -mllvm -polly-optimizer=none)

"$cc" "${flags[@]}" -mllvm -polly-export -mllvm -polly-import-jscop-dir="$work/in" "$src" -o "$work/export" 2>"$work/export.log"
files=$(ls "$work/in"/*.jscop 2>/dev/null | wc -l)
[ "$files" -gt 0 ] || { echo "FAIL: Polly exported no SCoP"; cat "$work/export.log"; exit 1; }

"$atoll" jscop "$work/in" -o "$work/identity" --identity --quiet
for f in "$work/in"/*.jscop; do
  cmp "$f" "$work/identity/$(basename "$f")" || { echo "FAIL: --identity changed $(basename "$f")"; exit 1; }
done

"$atoll" jscop "$work/in" -o "$work/out" --report "$work/report.json"
"$cc" "${flags[@]}" -mllvm -polly-import -mllvm -polly-import-jscop-dir="$work/out" "$src" -o "$work/atoll" \
  2>"$work/import.log"
read_count=$(grep -c "Reading JScop" "$work/import.log" || true)
if grep -q "changes the dependences" "$work/import.log"; then
  echo "FAIL: Polly refused a schedule"; cat "$work/import.log"; exit 1
fi
if [ "$read_count" -ne "$files" ]; then
  echo "FAIL: Polly read $read_count of $files files"; cat "$work/import.log"; exit 1
fi
# Polly generates code only where it applies an imported schedule: when the
# kernel's SCoP was rescheduled, the assembly must differ from the
# --identity build's.
# report.json lists each file's "file" and then its "status" (no python
# needed on the machine: awk reads them).
read -r scheduled kernel < <(awk '/"file":/ { k = ($0 ~ /"kernel_/) }
  /"status": "scheduled"/ { n++; if (k) m++ } END { print n + 0, m + 0 }' "$work/report.json")
if [ "$kernel" -gt 0 ]; then
  "$cc" "${flags[@]}" -mllvm -polly-import -mllvm -polly-import-jscop-dir="$work/out" "$src" -S -o "$work/atoll.s" 2>/dev/null
  "$cc" "${flags[@]}" -mllvm -polly-import -mllvm -polly-import-jscop-dir="$work/identity" "$src" -S \
    -o "$work/identity.s" 2>/dev/null
  if cmp -s "$work/atoll.s" "$work/identity.s"; then
    echo "FAIL: Polly generated the same code from Atoll's schedules as from the unchanged ones"; exit 1
  fi
fi
"$cc" -O3 -march=native -I "$dir" "$src" -o "$work/O3"
want=$("$work/O3" | awk '{print $2}')
got=$("$work/atoll" | awk '{print $2}')
awk -v a="$want" -v b="$got" 'function abs(x) { return x < 0 ? -x : x }
  BEGIN { m = abs(a) > abs(b) ? abs(a) : abs(b); if (abs(a - b) > 1e-9 * (m > 1e-300 ? m : 1e-300)) exit 1 }' ||
  { echo "FAIL: checksum $got with Atoll's schedules, $want with clang -O3"; exit 1; }
echo "ok: $files files, $scheduled rescheduled, imported by Polly, checksum $got"
