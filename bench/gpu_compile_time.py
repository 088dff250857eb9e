#!/usr/bin/env python3
"""GPU mapping and emission time per cluster (issue 35: at most 0.2 s median).

Compiles the samples and the regression batches with `atoll compile --target
cuda` and reads report.json. For each graph it takes the time of the GPU
table's own passes (map_to_gpu, build_ast, split_launches) plus the printing
of the CUDA text (stage emit_gpu), divided by the graph's kernels. NVRTC is
timed apart (stage nvrtc) and left out, as the issue says. It prints the
median and the maximum over graphs of that time per cluster, and the same
for the whole polyhedral pipeline (scheduler included).

Usage: bench/gpu_compile_time.py [ATOLL]   (default build/src/atoll)
"""
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile

root = pathlib.Path(__file__).resolve().parent.parent
atoll = sys.argv[1] if len(sys.argv) > 1 else str(root / "build/src/atoll")
batches = sorted((root / "samples").glob("*.json")) + [root / "tests/data" / f for f in
                                                       ("op_regressions.json", "random_graphs.json")]
gpu_passes = {"map_to_gpu", "build_ast", "split_launches"}
per_cluster, whole, nvrtc = [], [], []
with tempfile.TemporaryDirectory() as tmp:
    for b in batches:
        out = pathlib.Path(tmp) / b.stem
        subprocess.run([atoll, "compile", str(b), "--target", "cuda:sm_90", "-o", str(out), "--quiet",
                        "--threads", "1", "--report", str(out / "report.json")], check=True,
                       stdout=subprocess.DEVNULL)
        report = json.loads((out / "report.json").read_text())
        for g in report["graphs"]:
            if g["status"] != "ok" or not g["kernels"]:
                continue
            k = g["kernels"]
            own = sum(p["ms"] for p in g["passes"] if p["name"] in gpu_passes)
            stages = g["stage_ms"]
            per_cluster.append((own + stages.get("emit_gpu", 0)) / k)
            whole.append(sum(p["ms"] for p in g["passes"]) / k)
            nvrtc.append(stages.get("nvrtc", 0) / k)
print(f"graphs: {len(per_cluster)} (samples, op_regressions, random_graphs), one compile thread")
print(f"mapping + AST + launches + CUDA text, ms per cluster: median {statistics.median(per_cluster):.1f}, "
      f"max {max(per_cluster):.1f}")
print(f"whole polyhedral pipeline (scheduler included), ms per cluster: median {statistics.median(whole):.1f}, "
      f"max {max(whole):.1f}")
print(f"NVRTC (left out above), ms per cluster: median {statistics.median(nvrtc):.1f}, max {max(nvrtc):.1f}")
