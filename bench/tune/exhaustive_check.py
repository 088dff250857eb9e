#!/usr/bin/env python3
"""Issue 37's strategy check: on kernels whose space has at most 400
points, the whole space measured once (exhaustive), against the default
strategy (greedy) with a quarter of those trials. Prints, per kernel, the
space's size, the exhaustive best ratio, the greedy best ratio with its
trials, and whether greedy is within 5% of the exhaustive best.

usage: python3 bench/tune/exhaustive_check.py [--atoll build/src/atoll] [--batch bench/tune_set.json]
           [--graphs G1,G2,...] [--out DIR]
Without --graphs, every graph of the batch whose clusters all have spaces
of at most 400 points. Ratios are the tuner's (A/B against the default,
best confirmed against the reference). Writes OUT/exhaustive.json.
"""
import argparse
import json
import os
import re
import subprocess
import sys


def space_size(atoll, batch, graph):
    text = subprocess.run([atoll, "explain", batch, "--graph", graph, "--stage", "space"],
                          capture_output=True, text=True, check=True).stdout
    sizes = [int(m) for m in re.findall(r"knobs, (\d+) points", text)]
    return max(sizes) if sizes else 0


def tune(atoll, batch, graph, out, strategy, trials):
    rec, rep = os.path.join(out, f"{graph}-{strategy}.jsonl"), os.path.join(out, f"{graph}-{strategy}.json")
    for f in (rec, rep):
        if os.path.exists(f):
            os.remove(f)
    cmd = [atoll, "tune", batch, "--graph", graph, "--strategy", strategy, "--budget", "3600",
           "--records", rec, "--report", rep, "--quiet"]
    if trials:
        cmd += ["--trials", str(trials)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    c = json.load(open(rep))["clusters"]
    return max((x["best_ratio"] for x in c), default=1.0), sum(x["trials"] for x in c)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--atoll", default="build/src/atoll")
    ap.add_argument("--batch", default="bench/tune_set.json")
    ap.add_argument("--graphs", default="")
    ap.add_argument("--out", default="build/exhaustive")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    graphs = a.graphs.split(",") if a.graphs else [g["name"] for g in json.load(open(a.batch))["graphs"]]
    rows = []
    print(f"{'graph':28} {'points':>6} {'exhaustive':>10} {'greedy':>7} {'trials':>6}  within 5%")
    for g in graphs:
        n = space_size(a.atoll, a.batch, g)
        if n == 0 or n > 400:
            continue
        ex, ex_trials = tune(a.atoll, a.batch, g, a.out, "exhaustive", 0)
        gr, gr_trials = tune(a.atoll, a.batch, g, a.out, "greedy", max(1, n // 4))
        ok = gr >= 0.95 * ex
        rows.append({"graph": g, "points": n, "exhaustive": ex, "exhaustive_trials": ex_trials,
                     "greedy": gr, "greedy_trials": gr_trials, "within_5pct": ok})
        print(f"{g:28} {n:6} {ex:10.3f} {gr:7.3f} {gr_trials:6}  {'yes' if ok else 'NO'}")
    print(f"{sum(r['within_5pct'] for r in rows)} of {len(rows)} kernels within 5% with a quarter of the trials")
    json.dump(rows, open(os.path.join(a.out, "exhaustive.json"), "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
