#!/usr/bin/env python3
"""Markdown tables from an atoll_kernel_bench JSON file (bench/run_kernels.sh writes one).

usage: bench/results_to_markdown.py RESULTS.json [--threads N]
Each table: median ms and rate per library, and Atoll's rate over each peer's
(> 1: Atoll faster). "n/a": the variant does not exist; "FAILED": it did not run.
"""
import json
import sys

GROUPS = [
    ("gemm", "GEMM f32 (GFLOP/s)", ["atoll", "naive", "openblas", "onednn"],
     [("atoll", "openblas"), ("atoll", "onednn"), ("atoll", "naive")]),
    ("conv", "Conv f32, batch 1 (GFLOP/s)", ["atoll", "atoll-blocked", "naive", "onednn", "onednn-blocked",
                                             "onednn-any"],
     [("atoll", "onednn"), ("atoll-blocked", "onednn-blocked"), ("atoll", "onednn-any")]),
    ("memory", "Memory-bound f32 (GB/s, compulsory bytes)", ["atoll", "naive", "onednn", "triad"],
     [("atoll", "triad"), ("atoll", "onednn"), ("onednn", "triad")]),
]


def cell(lib):
    if lib is None or "unavailable" in lib:
        return "n/a"
    if "error" in lib:
        return "FAILED"
    rate = lib["rate"]
    flag = "" if lib.get("ok", True) else " (WRONG)"
    return f"{lib['median_ms']:.3f} ms, {rate:.0f}{flag}" if rate >= 100 else f"{lib['median_ms']:.3f} ms, {rate:.1f}{flag}"


def ratio(a, b):
    if not a or not b or "rate" not in a or "rate" not in b or not b["rate"]:
        return "n/a"
    return f"{a['rate'] / b['rate']:.2f}"


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    data = json.load(open(sys.argv[1]))
    only = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else None
    print(f"Measured {data['date']} on {data['host']}; {data['openblas']}; {data['onednn']}; "
          f"{data['note']}; load at end {data['load_end']}.\n")
    for threads in data["threads"]:
        if only is not None and threads != only:
            continue
        for group, title, libs, ratios in GROUPS:
            cases = [c for c in data["cases"] if c["group"] == group and c["threads"] == threads
                     and not c["name"].startswith("mem/triad")]
            if not cases:
                continue
            print(f"**{title}, {threads} thread{'s' if threads > 1 else ''}**\n")
            head = ["case"] + libs + [f"{a}/{b}" for a, b in ratios] + ["Atoll compile ms"]
            print("| " + " | ".join(head) + " |")
            print("|" + "---|" * len(head))
            for c in cases:
                by = {l["lib"]: l for l in c["libs"]}
                atoll = by.get("atoll", {})
                comp = f"{atoll['compile_ms_median']:.0f}" if "compile_ms_median" in atoll else "n/a"
                row = [f"{c['name']} ({c['shape']})"] + [cell(by.get(l)) for l in libs]
                row += [ratio(by.get(a), by.get(b)) for a, b in ratios] + [comp]
                print("| " + " | ".join(row) + " |")
            print()
    if data["failures"]:
        print("Failures: " + "; ".join(data["failures"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
