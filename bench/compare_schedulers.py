#!/usr/bin/env python3
"""Pluto (PPL) vs isl scheduler: median one-thread time of the JIT code.

Runs `atoll run --bench --threads 1 --scheduler S` on the samples the issue
names (transposed matmul, three-layer MLP, group convolution, blur stencil),
side by side, and prints medians and the pluto/isl ratio (< 1: pluto faster).
Usage: bench/compare_schedulers.py [path/to/atoll] [repeats]
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ATOLL = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "src", "atoll")
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
CASES = [("custom_compute.json", "transposed_matmul"), ("mlp.json", "mlp3"),
         ("custom_compute.json", "group_conv"), ("custom_compute.json", "blur_stencil")]


def bench(batch, scheduler):
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        # --param only where the batch declares N (an undeclared one is a usage error).
        with open(os.path.join(ROOT, "samples", batch)) as f:
            declares_n = any("N" in g.get("params", {}) for g in json.load(f)["graphs"])
        subprocess.run([ATOLL, "run", os.path.join(ROOT, "samples", batch), "--bench", "--threads", "1",
                        "--scheduler", scheduler, "--quiet", "--report", report.name]
                       + (["--param", "N=64"] if declares_n else []),
                       check=True, stdout=subprocess.DEVNULL)
        with open(report.name) as f:
            return {g["name"]: g for g in json.load(f)["graphs"]}


def main():
    results = {}
    for scheduler in ("isl", "pluto"):
        for batch in sorted({b for b, _ in CASES}):
            for _ in range(REPEATS):  # keep the best median of several runs: the machine is shared
                for name, g in bench(batch, scheduler).items():
                    key = (scheduler, name)
                    ms = g["bench"]["median_ms"]
                    results[key] = min(results.get(key, ms), ms)
    print(f"{'graph':<20}{'isl ms':>10}{'pluto ms':>10}{'pluto/isl':>11}")
    worst = 0.0
    for _, name in CASES:
        isl, pluto = results[("isl", name)], results[("pluto", name)]
        worst = max(worst, pluto / isl)
        print(f"{name:<20}{isl:>10.3f}{pluto:>10.3f}{pluto / isl:>11.2f}")
    print(f"worst pluto/isl: {worst:.2f} (target <= 1.10)")


if __name__ == "__main__":
    main()
