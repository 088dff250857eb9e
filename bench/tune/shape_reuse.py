#!/usr/bin/env python3
"""Records reused across shapes (issue 37): a GEMM (K = N = 512, with a
Relu) tuned at M in {64, 256, 1024} and applied without search at M in
{96, 384, 768}, against tuning those shapes directly.

usage: PYTHONPATH=build/python build/venv/bin/python bench/tune/shape_reuse.py [--atoll build/src/atoll] [--budget 60] [--pairs 5] [--out DIR]
Tunes both sets (records-train.jsonl, records-direct.jsonl), then times the
test shapes untuned, with the train records (reused through the family
key: the nearest tuned shape's point) and with their own records, in
alternating whole-batch runs, one thread. Prints per shape the three
medians and reuse / direct (the direct schedule's time over the reused
one's: at least 0.95 is the target), and writes OUT/shape_reuse.json.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

from tune_bench import bench


def gemm(m, k=512, n=512):
    return {"name": f"gemm_m{m}", "inputs": [{"name": "a", "shape": [m, k]}],
            "weights": [{"name": "w", "shape": [k, n]}], "outputs": ["y"],
            "nodes": [{"op": "MatMul", "name": "mm", "inputs": ["a", "w"], "outputs": ["c"]},
                      {"op": "Relu", "name": "relu", "inputs": ["c"], "outputs": ["y"]}]}


def write(path, ms):
    json.dump({"atoll": 1, "name": os.path.basename(path), "graphs": [gemm(m) for m in ms]}, open(path, "w"))


def ab_ratios(a, test, rt, rd):
    """Per test graph: (reused point's ratio, direct point's ratio) against
    the default, A/B in the worker; the points are what --records applies
    (explain --stage apply_tuning names them)."""
    try:
        import atoll.tune as tune
    except ImportError:
        return {}
    m = tune.Measurer(atoll=a.atoll, timeout=120)
    out = {}
    for space in tune.spaces(test):
        ratios = []
        for rec in (rt, rd):
            text = subprocess.run([a.atoll, "explain", test, "--graph", space.graph, "--stage", "apply_tuning",
                                   "--records", rec], capture_output=True, text=True, check=True).stdout
            line = [l for l in text.splitlines() if l.strip().startswith("tuned (key")]
            point = space.default
            if line:
                point = dict(kv.split("=", 1) for kv in line[0].split("): ", 1)[1].split(","))
            rs = [m.measure(test, space, point)["ratio"] for _ in range(a.pairs)]
            ratios.append(statistics.median(rs))
        out[space.graph] = tuple(ratios)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--atoll", default="build/src/atoll")
    ap.add_argument("--budget", default="60")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--out", default="build/shape-reuse")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    train, test = os.path.join(a.out, "train.json"), os.path.join(a.out, "test.json")
    write(train, [64, 256, 1024])
    write(test, [96, 384, 768])
    rt, rd = os.path.join(a.out, "records-train.jsonl"), os.path.join(a.out, "records-direct.jsonl")
    for batch, rec in ((train, rt), (test, rd)):
        subprocess.run([a.atoll, "tune", batch, "--budget", a.budget, "--records", rec, "--quiet"], check=True)
    times = {"untuned": {}, "reuse": {}, "direct": {}}
    for _ in range(a.pairs):
        for what, rec in (("untuned", None), ("reuse", rt), ("direct", rd)):
            for g, ms in bench(a.atoll, test, rec, os.path.join(a.out, what + ".json")).items():
                times[what].setdefault(g, []).append(ms)
    # The same comparison A/B in the tuner's worker (atoll.tune), where each
    # point is timed interleaved with the default: the ratios of the reused
    # point and of the shape's own best, medians of --pairs measurements.
    ab = ab_ratios(a, test, rt, rd)
    rows = []
    print(f"{'graph':12} {'untuned ms':>11} {'reused ms':>10} {'direct ms':>10} {'reuse/direct':>13}"
          f" {'A/B reused':>11} {'A/B direct':>11} {'A/B reuse/direct':>17}")
    for g in times["untuned"]:
        u, r, d = (statistics.median(times[w][g]) for w in ("untuned", "reuse", "direct"))
        ar, ad = ab.get(g, (float("nan"), float("nan")))
        rows.append({"graph": g, "untuned_ms": u, "reuse_ms": r, "direct_ms": d, "reuse_vs_direct": d / r,
                     "ab_reuse_ratio": ar, "ab_direct_ratio": ad, "ab_reuse_vs_direct": ar / ad})
        print(f"{g:12} {u:11.4f} {r:10.4f} {d:10.4f} {d / r:13.3f} {ar:11.3f} {ad:11.3f} {ar / ad:17.3f}")
    json.dump({"budget_s": float(a.budget), "pairs": a.pairs, "rows": rows},
              open(os.path.join(a.out, "shape_reuse.json"), "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
