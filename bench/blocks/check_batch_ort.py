"""Runs every graph of a batch with Atoll and with onnxruntime and compares the outputs.

A second oracle beside `--verify` (which compares with Atoll's own reference
interpreter): onnxruntime runs the same graph, converted by onnx_convert.py,
on the inputs and weights Atoll used (`atoll run --dump`; symbolic
dimensions at the values of the dumped inputs). Tolerances are those of cli.md's `--verify`
(normwise relative error 1e-4 for f32, 1e-2 for f16 and bf16 and for f32
outputs computed through f16 or bf16, exact for integers). Graphs that onnx_convert or onnxruntime cannot run are listed
and skipped.

Usage: bench/.venv-blocks/bin/python bench/blocks/check_batch_ort.py ATOLL BATCH.json [--target T]
(the venv is the one bench/run_blocks.sh creates: onnx, onnxruntime, numpy).
Exit status 1 when an output differs.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnxruntime as ort

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_convert  # noqa: E402
from bench_blocks import compare, load_dump  # noqa: E402

TOLERANCE = {np.float32: 1e-4, np.float16: 1e-2}
LOW = ("f16", "bf16")


def computed_through_low(graph):
    """Tensors that a node rounds to f16 or bf16 on their way (a Cast there, or an
    operator on an f16/bf16 input that does not cast it), and everything computed
    from them: their f32 values take f16's tolerance, as `atoll run --verify` does."""
    low = {d["name"] for d in graph["inputs"] + graph.get("weights", []) if d.get("dtype") in LOW}
    narrowed = set()
    for node in graph["nodes"]:
        ins = [i for i in node.get("inputs", []) if i]
        to = node.get("attrs", {}).get("to") if node["op"] == "Cast" else None
        if (to in LOW or any(i in narrowed for i in ins)
                or (node["op"] != "Cast" and any(i in low for i in ins))):
            narrowed.update(node.get("outputs", []))
    return narrowed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("atoll")
    ap.add_argument("batch")
    ap.add_argument("--target", default="cpu")
    args = ap.parse_args()
    batch = json.load(open(args.batch))
    work = tempfile.mkdtemp(prefix="atoll-ort-")
    subprocess.run([args.atoll, "run", args.batch, "--verify", "--target", args.target, "--dump", work],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    checked = skipped = bad = 0
    for graph in batch["graphs"]:
        name = graph["name"]
        folder = os.path.join(work, name)
        if not os.path.isdir(folder):
            print(f"{name}: no dump (Atoll failed on it: see atoll run)")
            skipped += 1
            continue
        tensors = load_dump(folder)
        outs = {o: tensors[o] for o in graph["outputs"] if o in tensors}
        params = {}  # symbolic dimensions at the values of the dumped inputs
        for decl in graph["inputs"] + graph.get("weights", []):
            for dim, extent in zip(decl.get("shape", []), np.shape(tensors.get(decl["name"], []))):
                if isinstance(dim, str):
                    params[dim] = int(extent)
        try:
            model, feeds = onnx_convert.convert_graph(graph, params, tensors, outs)
            session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
            results = session.run(list(outs), feeds)
        except Exception as e:  # a converter or onnxruntime limit, not a verdict on Atoll
            print(f"{name}: skipped ({str(e).splitlines()[0][:160]})")
            skipped += 1
            continue
        checked += 1
        narrowed = computed_through_low(graph)
        for (o, mine), theirs in zip(outs.items(), results):
            tol = TOLERANCE.get(mine.dtype.type, 0.0)
            if mine.dtype == np.float32 and o in narrowed:
                tol = TOLERANCE[np.float16]
            _, rel, why = compare(mine, theirs)
            if why or rel > tol:
                print(f"{name}: output {o}: " + (why or f"max_rel_err {rel:.3g} exceeds {tol}"))
                bad += 1
    print(f"{args.batch}: {checked} graphs compared with onnxruntime, {skipped} skipped, {bad} outputs differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
