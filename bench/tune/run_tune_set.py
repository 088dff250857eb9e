#!/usr/bin/env python3
"""Issue 37's targets on the tuning set: tunes every cluster of
bench/tune_set.json, then times each graph tuned (run --records) against
untuned, interleaved, and prints the figures.

usage: python3 bench/tune/run_tune_set.py [--atoll build/src/atoll] [--budget 60]
           [--strategy greedy] [--pairs 3] [--out DIR] [--records DB.jsonl] [--no-tune]
Prints, per graph: the tuner's trials and best confirmed ratio per cluster,
then tuned / untuned medians of `atoll run --bench` (one thread) over
--pairs alternating runs and their ratio (untuned / tuned: above 1 is the
tuned schedule faster); then the geomean, the count below 0.98 and at or
above 1.3, and the median budget seconds to reach 95% of each cluster's
final gain. Writes OUT/report.json (the tuner's), OUT/records.jsonl and
OUT/tune_set.json (the figures).
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys

from tune_bench import bench
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--atoll", default="build/src/atoll")
    ap.add_argument("--batch", default="bench/tune_set.json")
    ap.add_argument("--budget", default="60")
    ap.add_argument("--strategy", default="greedy")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--out", default="build/tune-set")
    ap.add_argument("--records", default=None)
    ap.add_argument("--no-tune", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    records = a.records or os.path.join(a.out, "records.jsonl")
    report = os.path.join(a.out, "report.json")
    t0 = time.time()
    if not a.no_tune:
        subprocess.run([a.atoll, "tune", a.batch, "--budget", a.budget, "--strategy", a.strategy,
                        "--records", records, "--report", report, "--quiet"], check=True)
    tune_s = time.time() - t0
    tuned = json.load(open(report))
    # Tuned against untuned: whole-batch runs, alternating.
    base, best = {}, {}
    for p in range(a.pairs):
        for name, ms in bench(a.atoll, a.batch, None, os.path.join(a.out, "untuned.json")).items():
            base.setdefault(name, []).append(ms)
        for name, ms in bench(a.atoll, a.batch, records, os.path.join(a.out, "tuned.json")).items():
            best.setdefault(name, []).append(ms)
    rows, ratios = [], []
    for name in base:
        u, t = statistics.median(base[name]), statistics.median(best[name])
        r = u / t if t > 0 else float("nan")
        ratios.append(r)
        cl = [c for c in tuned["clusters"] if c["graph"] == name]
        rows.append({"graph": name, "untuned_ms": u, "tuned_ms": t, "ratio": r,
                     "clusters": [{"cluster": c["cluster"], "trials": c["trials"], "best_ratio": c["best_ratio"],
                                   "seconds": c["seconds"], "best": c["best"]} for c in cl]})
    # Time to 95% of each cluster's final gain (budget seconds, from the curve).
    t95 = []
    for c in tuned["clusters"]:
        gain = c["best_ratio"] - 1
        if gain <= 0 or not c["curve"]:
            continue
        t95.append(next(p["s"] for p in c["curve"] if p["ratio"] - 1 >= 0.95 * gain))
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"{'graph':34} {'untuned ms':>11} {'tuned ms':>10} {'ratio':>7}  clusters (trials, tuner's ratio)")
    for row in rows:
        cl = ", ".join(f"{c['cluster']} ({c['trials']}, {c['best_ratio']:.2f})" for c in row["clusters"])
        print(f"{row['graph']:34} {row['untuned_ms']:11.4f} {row['tuned_ms']:10.4f} {row['ratio']:7.3f}  {cl}")
    below = sum(r < 0.98 for r in ratios)
    above = sum(r >= 1.3 for r in ratios)
    med95 = statistics.median(t95) if t95 else 0.0
    print(f"geomean {geo:.3f} over {len(ratios)} graphs; below 0.98: {below}; at or above 1.3: {above}; "
          f"median seconds to 95% of the gain: {med95:.1f} ({len(t95)} clusters improved); "
          f"tuning took {tune_s:.0f} s")
    json.dump({"budget_s": float(a.budget), "strategy": a.strategy, "pairs": a.pairs, "geomean": geo,
               "below_0_98": below, "at_least_1_3": above, "median_s_to_95": med95, "tune_seconds": tune_s,
               "machine": tuned.get("machine"), "graphs": rows},
              open(os.path.join(a.out, "tune_set.json"), "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
