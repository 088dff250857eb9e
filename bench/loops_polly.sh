#!/usr/bin/env bash
# The loop kernels of samples/loops built three ways and timed in one run:
#   O3     clang-19 -O3 -march=native
#   polly  the same with Polly and its own scheduler
#   atoll  the same with Polly importing the schedules `atoll jscop` wrote
# Each kernel's programs run interleaved (O3, polly, atoll, O3, ...), REPS
# times; the table gives median seconds, the ratios over O3, and whether the
# checksums agree with O3's (1e-9 relative; Polly may reassociate).
# With --threads 2 the polly and atoll builds add -polly-parallel (OpenMP,
# OMP_NUM_THREADS=2); O3 stays serial.
#
# usage: bench/loops_polly.sh [--atoll PATH] [--reps N] [--threads 1|2]
#                             [--work DIR] [--json FILE] [--scheduler S] [KERNEL ...]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
atoll=$here/build/src/atoll
[ -x "$atoll" ] || atoll=$here/build/atoll
reps=5
threads=1
work=${TMPDIR:-/tmp}/atoll-loops
json=""
scheduler=isl
kernels=()
while [ $# -gt 0 ]; do
  case $1 in
    --atoll) atoll=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    --scheduler) scheduler=$2; shift 2 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) kernels+=("$1"); shift ;;
  esac
done
[ ${#kernels[@]} -gt 0 ] || for f in "$here"/samples/loops/*.c; do kernels+=("$(basename "$f" .c)"); done
cc=${CC_POLLY:-clang-19}
command -v "$cc" >/dev/null || { echo "$cc not found (scripts/install-deps.sh installs clang-19)" >&2; exit 1; }
[ -x "$atoll" ] || { echo "atoll not found at $atoll (build first, or --atoll PATH)" >&2; exit 1; }

# Flags shared by export, import and Polly's own build: Polly early in the
# pipeline, before LLVM turns array accesses into scalar phis that would
# serialise every loop.
base=(-O3 -march=native -I "$here/samples/loops")
polly=(-mllvm -polly -mllvm -polly-position=early -mllvm -polly-process-unprofitable)
par=()
export OMP_NUM_THREADS=$threads
if [ "$threads" -gt 1 ]; then par=(-mllvm -polly-parallel -lgomp); fi

rm -rf "$work"
mkdir -p "$work"
rows=()
for k in "${kernels[@]}"; do
  src=$here/samples/loops/$k.c
  d=$work/$k
  mkdir -p "$d/in" "$d/out"
  "$cc" "${base[@]}" "$src" -o "$d/O3"
  "$cc" "${base[@]}" "${polly[@]}" "${par[@]}" "$src" -o "$d/polly"
  "$cc" "${base[@]}" "${polly[@]}" -mllvm -polly-optimizer=none -mllvm -polly-export \
    -mllvm -polly-import-jscop-dir="$d/in" "$src" -o "$d/export" >"$d/export.log" 2>&1
  "$atoll" jscop "$d/in" -o "$d/out" --scheduler "$scheduler" --report "$d/report.json" --quiet
  "$cc" "${base[@]}" "${polly[@]}" "${par[@]}" -mllvm -polly-optimizer=none -mllvm -polly-import \
    -mllvm -polly-import-jscop-dir="$d/out" "$src" -o "$d/atoll" >"$d/import.log" 2>&1
  # Polly reports a schedule it refuses on standard error and goes on with the original.
  imported=yes
  if grep -qi "changes the dependences\|error\|could not" "$d/import.log"; then imported=no; fi
  declare -A times=()
  declare -A sums=()
  for ((r = 0; r < reps; ++r)); do
    for v in O3 polly atoll; do
      read -r t s < <("$d/$v")
      times[$v]+="$t "
      sums[$v]=$s
    done
  done
  med() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  mo=$(med "${times[O3]}"); mp=$(med "${times[polly]}"); ma=$(med "${times[atoll]}")
  check() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print('ok' if abs(a-b) <= 1e-9*max(abs(a),abs(b),1e-300) else 'DIFF')" "$1" "$2"; }
  cp=$(check "${sums[O3]}" "${sums[polly]}"); ca=$(check "${sums[O3]}" "${sums[atoll]}")
  # Atoll's own time on the kernel's SCoP (report.json), not the process's.
  atoll_s=$(python3 -c "
import json, sys
files = json.load(open(sys.argv[1]))['files']
print(f\"{max(f.get('seconds', 0) for f in files if f['file'].startswith('kernel_')):.3f}\")" "$d/report.json")
  rows+=("$k $mo $mp $ma $cp $ca $imported $atoll_s")
  unset times sums
done

python3 - "$threads" "$json" "${rows[@]}" <<'EOF'
import json, math, sys
threads, out, rows = sys.argv[1], sys.argv[2], [r.split() for r in sys.argv[3:]]
print(f"threads {threads}; seconds are medians; ratios are O3 time / variant time (higher is faster)")
print(f"| kernel | O3 s | Polly s | Atoll s | Polly/O3 | Atoll/O3 | Atoll/Polly | checksums | imported | Atoll s (kernel SCoP) |")
print("|---|---|---|---|---|---|---|---|---|---|")
res, ga, gp, gap = [], [], [], []
for k, o, p, a, cp, ca, imp, js in rows:
    o, p, a = float(o), float(p), float(a)
    res.append(dict(kernel=k, o3=o, polly=p, atoll=a, polly_checksum=cp, atoll_checksum=ca, imported=imp,
                    atoll_jscop_seconds=float(js)))
    gp.append(o / p); ga.append(o / a); gap.append(p / a)
    print(f"| {k} | {o:.4f} | {p:.4f} | {a:.4f} | {o/p:.2f} | {o/a:.2f} | {p/a:.2f} | {cp}/{ca} | {imp} | {js} |")
g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
js = sorted(r["atoll_jscop_seconds"] for r in res)
print(f"| geomean | | | | {g(gp):.2f} | {g(ga):.2f} | {g(gap):.2f} | | | median {js[len(js)//2]:.3f}, max {js[-1]:.3f} |")
below = [r["kernel"] for r in res if r["o3"] / r["atoll"] < 1.0]
print(f"Atoll below clang -O3: {', '.join(below) or 'none'}; "
      f"Atoll at least Polly (within 5%): {sum(r['polly'] / r['atoll'] >= 0.95 for r in res)} of {len(res)}")
if out:
    json.dump(dict(threads=int(threads), kernels=res, geomean_polly=g(gp), geomean_atoll=g(ga),
                   geomean_atoll_over_polly=g(gap)), open(out, "w"), indent=2)
EOF
