#!/usr/bin/env python3
"""Two builds (or two batches) of the same kernels, timed alternately in one process.

Compiles BATCH with `--old` and `--new` atoll binaries (`atoll compile -o DIR`:
object files and their manifest), links both sets into one C harness (each
object's symbols prefixed `old_` / `new_`, a serial atoll_parallel_for), and
times them call by call, alternating old and new, so that the machine's slow
spells hit both alike. Prints each kernel's min and median and the ratio of the
medians (old / new > 1: new is faster).

  bench/ab_kernels.py --old /tmp/atoll_before --new build/src/atoll samples/mobilenetv2_block.json
  bench/ab_kernels.py --old-batch unfused.json --new-batch fused.json --old A --new A --reps 500

When both sides have the same kernels, kernel k of old and of new are called
back to back (`pairs`); otherwise (fused against unfused) every kernel of old
runs, then every kernel of new, in each round (`rounds`), and only the sums
compare. Each kernel gets its own freshly filled arrays: the figures are of
kernels whose inputs sit in cache as far as they fit, not of the graph run.
Needs gcc and objcopy; one thread.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile


def compile_side(atoll, batch, out, params):
    cmd = [atoll, "compile", batch, "-o", out, "--quiet"]
    for p in params:
        cmd += ["--param", p]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "manifest.json")) as f:
        m = json.load(f)
    kernels = [k for g in m["graphs"] for k in g["kernels"]]
    objects = sorted({os.path.join(out, f) for k in kernels for f in k["files"] if f.endswith(".o")})
    values = dict(p.split("=", 1) for p in params)
    for k in kernels:
        k["arrays"] = [a for a in k["args"] if a.get("role") != "param"]
        k["params"] = []
        for a in k["args"]:
            if a.get("role") == "param":
                if a["name"] not in values:
                    sys.exit(f"ab_kernels: {k['entry']} takes parameter {a['name']}: pass --param {a['name']}=VALUE")
                k["params"].append(int(values[a["name"]]))
        for a in k["arrays"]:
            for d in a["shape"]:
                if not isinstance(d, int) and d not in values:
                    sys.exit(f"ab_kernels: {k['entry']} has dimension {d}: pass --param {d}=VALUE")
            a["shape"] = [d if isinstance(d, int) else int(values[d]) for d in a["shape"]]
    return kernels, objects


def elements(arg):
    n = 1
    for d in arg["shape"]:
        n *= d
    return max(n, 1)


def harness(sides, reps, paired):
    src = ["#include <stdio.h>", "#include <stdlib.h>", "#include <stdint.h>", "#include <time.h>",
           "static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}",
           "static int cmp(const void*a,const void*b){double x=*(const double*)a,y=*(const double*)b;return x<y?-1:x>y;}",
           "static void *mk(long n){float*p=aligned_alloc(64,((n*4+63)/64)*64);"
           "for(long i=0;i<n;i++)p[i]=(float)((rand()%2001)-1000)/250.0f;return p;}"]
    for side, (kernels, _) in sides.items():
        src.append(f"void {side}_atoll_parallel_for(void (*body)(void*,int64_t,int64_t), void *ctx, int64_t b, int64_t e)"
                   "{ body(ctx,b,e); }")
        for k in kernels:
            src.append(f"void {side}_{k['entry']}(void**, const int64_t*);")
    nk = max(len(k) for k, _ in sides.values())
    src.append(f"static double t[2][{nk}][{reps}];")
    src.append(f"int main(void){{ const int R={reps}; double s;")
    for side, (kernels, _) in sides.items():
        for i, k in enumerate(kernels):
            src.append(f" void *a_{side}_{i}[{max(len(k['arrays']), 1)}];")
            values = ", ".join(str(v) for v in k["params"]) or "0"
            src.append(f" int64_t p_{side}_{i}[] = {{{values}}};")
            for j, a in enumerate(k["arrays"]):
                src.append(f" a_{side}_{i}[{j}]=mk({elements(a)});")
    names = list(sides)
    if paired:
        for i, k in enumerate(sides["old"][0]):
            body = " ".join(f"s=now(); {side}_{k['entry']}(a_{side}_{i},p_{side}_{i}); if(r>=0) t[{v}][{i}][r]=now()-s;"
                            for v, side in enumerate(names))
            src.append(f" for(int r=-5;r<R;r++){{ {body} }}")
    else:
        src.append(" for(int r=-5;r<R;r++){")
        for v, side in enumerate(names):
            for i, k in enumerate(sides[side][0]):
                src.append(f"  s=now(); {side}_{k['entry']}(a_{side}_{i},p_{side}_{i}); if(r>=0) t[{v}][{i}][r]=now()-s;")
        src.append(" }")
    src.append(" double sum_min[2]={0,0}, sum_med[2]={0,0};")
    for v, side in enumerate(names):
        for i, k in enumerate(sides[side][0]):
            src.append(f" qsort(t[{v}][{i}],R,sizeof(double),cmp); sum_min[{v}]+=t[{v}][{i}][0]; sum_med[{v}]+=t[{v}][{i}][R/2];")
            src.append(f' printf("%-4s %-40s min %8.4f  med %8.4f ms\\n","{side}","{k["entry"]}",t[{v}][{i}][0],t[{v}][{i}][R/2]);')
    src.append(' printf("sum  old min %.4f med %.4f | new min %.4f med %.4f | old/new: min %.3f, med %.3f\\n",'
               "sum_min[0],sum_med[0],sum_min[1],sum_med[1],sum_min[0]/sum_min[1],sum_med[0]/sum_med[1]); return 0; }")
    return "\n".join(src)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("batch", help="the batch both sides compile (unless --old-batch / --new-batch)")
    ap.add_argument("--old", required=True, help="atoll binary of the old side")
    ap.add_argument("--new", required=True, help="atoll binary of the new side")
    ap.add_argument("--old-batch", help="the old side's batch instead of BATCH")
    ap.add_argument("--new-batch", help="the new side's batch instead of BATCH")
    ap.add_argument("--param", action="append", default=[], help="NAME=VALUE for symbolic dimensions (both sides)")
    ap.add_argument("--reps", type=int, default=300, help="timed calls per kernel and side (default 300)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="atoll-ab-")
    try:
        sides, objects = {}, []
        for side, exe, batch in (("old", args.old, args.old_batch or args.batch),
                                 ("new", args.new, args.new_batch or args.batch)):
            out = os.path.join(work, side)
            kernels, objs = compile_side(exe, batch, out, args.param)
            sides[side] = (kernels, objs)
            for o in objs:
                renamed = os.path.join(work, f"{side}_{os.path.basename(o)}")
                subprocess.run(["objcopy", f"--prefix-symbols={side}_", o, renamed], check=True)
                # The C library's functions the kernels call (memset for a
                # local buffer, expf in C code) keep their names; the
                # runtime's (atoll_parallel_for) are the harness's, per side.
                undefined = subprocess.run(["nm", "-u", "--format=just-symbols", o], check=True,
                                           capture_output=True, text=True).stdout.split()
                back = [f"--redefine-sym={side}_{u}={u}" for u in undefined if not u.startswith("atoll_")]
                if back:
                    subprocess.run(["objcopy"] + back + [renamed], check=True)
                objects.append(renamed)
        paired = [k["entry"] for k in sides["old"][0]] == [k["entry"] for k in sides["new"][0]]
        c = os.path.join(work, "harness.c")
        with open(c, "w") as f:
            f.write(harness(sides, args.reps, paired))
        exe = os.path.join(work, "harness")
        subprocess.run(["gcc", "-O2", "-o", exe, c] + objects + ["-lm"], check=True)
        print(f"ab_kernels: {args.reps} calls per kernel and side, "
              f"{'pairs (old, new back to back)' if paired else 'rounds (all old, then all new)'}")
        sys.stdout.flush()
        subprocess.run([exe], check=True)
    finally:
        if args.keep:
            print(f"work files kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
