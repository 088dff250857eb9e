#!/usr/bin/env python3
"""A random search over one cluster's knobs with atoll.tune: the kind of
loop a research driver writes around Atoll. Every point is measured in a
child process against the default schedule; the best point is checked
against the reference interpreter and written to a records file that
`atoll run --records` applies.

usage: ATOLL_EXE=build/src/atoll PYTHONPATH=build/python python3 samples/python/tune_random_search.py
           BATCH.json GRAPH TRIALS RECORDS.jsonl [SEED]
"""
import random
import sys

import atoll.tune as tune


def main(path, graph, trials, records, seed=1):
    rng = random.Random(seed)
    space = tune.spaces(path, graph=graph)[0]
    print(space)
    measurer = tune.Measurer(timeout=60)
    best, best_ratio, seen = None, 1.0, set()
    for _ in range(trials):
        point = {k["name"]: rng.choice(k["values"]) for k in space.knobs}
        if tuple(sorted(point.items())) in seen:
            continue
        seen.add(tuple(sorted(point.items())))
        rec = measurer.measure(path, space, point)
        tune.append_record(records, rec)
        print(f"{rec['status']:8} {rec['ratio']:.3f}  {point}")
        if rec["status"] == "ok" and rec["ratio"] > best_ratio:
            best, best_ratio = point, rec["ratio"]
    if best is not None:
        # Confirmed against the reference: only such records are applied.
        rec = measurer.measure(path, space, best, verify="reference")
        tune.append_record(records, rec)
        print(f"best {rec['ratio']:.3f} ({rec['status']}, verified against the {rec['verified']})")
    else:
        print("the default stayed best")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    sys.exit(main(args[0], args[1], int(args[2]), args[3], int(args[4]) if len(args) > 4 else 1))
