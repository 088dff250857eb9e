#!/usr/bin/env python3
"""Whole networks against onnxruntime: the model zoo's light models of ONNX's
backend suite (onnx/backend/test/data/light), each compiled by Atoll and run
by both on the same input, one thread each, timed interleaved.

The light models fill their weights with ConstantOfShape (constant values);
here every such weight becomes an initializer of random values (the same for
both runtimes), so that the outputs compare meaningfully.

usage: PYTHONPATH=build/python build/venv/bin/python bench/networks/run_networks.py
           [--models resnet50,squeezenet] [--reps 10] [--threads 1] [--json FILE]
Prints, per network: Atoll's compile time, both medians, the ratio
(onnxruntime time / Atoll time: above 1 is Atoll faster), the largest
difference between the outputs, Atoll's arena (the intermediates of one
call), and the peak resident memory of a process that only loads the model
and runs it once, for each runtime (each in a process of its own, so one
network's or runtime's memory does not count for another).
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

import atoll

ort.set_default_logger_severity(3)

LIGHT = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")
MODELS = ["bvlc_alexnet", "densenet121", "inception_v1", "inception_v2", "resnet50", "shufflenet",
          "squeezenet", "vgg19", "zfnet512"]


def randomized(path, rng):
    """The model with every ConstantOfShape of a constant shape replaced by
    an initializer of random values (scaled like a He initialisation)."""
    m = onnx.load(path)
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    keep = []
    for node in m.graph.node:
        if node.op_type == "ConstantOfShape" and node.input[0] in inits:
            shape = [int(d) for d in inits[node.input[0]]]
            if len(shape) > 1:  # a weight: He-scaled normal values
                value = rng.standard_normal(shape) * np.sqrt(2.0 / int(np.prod(shape[1:])))
            else:  # biases and batch-norm statistics: positive (a variance must be)
                value = rng.uniform(0.5, 1.5, size=shape)
            value = value.astype(np.float32)
            m.graph.initializer.append(numpy_helper.from_array(value, node.output[0]))
        else:
            keep.append(node)
    del m.graph.node[:]
    m.graph.node.extend(keep)
    return m


def median_ms(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def peak_mib():
    """This process's peak resident memory: VmHWM, which starts anew at exec
    (getrusage's ru_maxrss would carry the parent's peak into the child)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def alone(runtime, path, threads):
    """In a process of its own: load the model with one runtime, run it once
    on random input, print the peak resident memory (MiB) as JSON."""
    rng = np.random.default_rng(1)
    if runtime == "atoll":
        m = atoll.compile(atoll.import_onnx(path), threads=threads)
        m.run({m.inputs[0]: rng.standard_normal(m.shape(m.inputs[0])).astype(np.float32)})
    else:
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        i = sess.get_inputs()[0]
        sess.run(None, {i.name: rng.standard_normal(i.shape).astype(np.float32)})
    print(json.dumps({"peak_mib": round(peak_mib())}))


def peak_alone(runtime, path, threads):
    out = subprocess.run([sys.executable, __file__, "--alone", runtime, path, "--threads", str(threads)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["peak_mib"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", default=None)
    ap.add_argument("--alone", nargs=2, metavar=("RUNTIME", "MODEL"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.alone:
        return alone(args.alone[0], args.alone[1], args.threads)
    rng = np.random.default_rng(0)
    rows = []
    print(f"{'network':14} {'compile s':>9} {'atoll ms':>9} {'ort ms':>9} {'ratio':>6} {'max diff':>9} "
          f"{'arena MiB':>9} {'atoll MiB':>9} {'ort MiB':>8}")
    for name in args.models.split(","):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, name + ".onnx")
            onnx.save(randomized(os.path.join(LIGHT, "light_" + name + ".onnx"), rng), path)
            peaks = {r: peak_alone(r, path, args.threads) for r in ("atoll", "ort")}
            t0 = time.perf_counter()
            g = atoll.import_onnx(path)
            m = atoll.compile(g, threads=args.threads)
            compile_s = time.perf_counter() - t0
            so = ort.SessionOptions()
            so.intra_op_num_threads = args.threads
            so.inter_op_num_threads = 1
            sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        x = rng.standard_normal(m.shape(m.inputs[0])).astype(np.float32)
        feeds = {m.inputs[0]: x}
        ours = m.run(feeds)[m.outputs[0]]
        theirs = sess.run(None, {sess.get_inputs()[0].name: x})[0]
        diff = float(np.abs(ours - theirs).max())
        call = m.bind(feeds)
        call.run()
        sess.run(None, {sess.get_inputs()[0].name: x})
        a, o = [], []
        for _ in range(args.reps):  # interleaved, so that both see the same machine
            a.append(median_ms(call.run, 1))
            o.append(median_ms(lambda: sess.run(None, {sess.get_inputs()[0].name: x}), 1))
        row = {"network": name, "compile_s": round(compile_s, 2), "atoll_ms": round(statistics.median(a), 2),
               "ort_ms": round(statistics.median(o), 2), "max_diff": diff,
               "arena_mib": round(m.arena_bytes / 2**20, 1), "atoll_peak_mib": peaks["atoll"],
               "ort_peak_mib": peaks["ort"]}
        row["ratio"] = round(row["ort_ms"] / row["atoll_ms"], 3)
        rows.append(row)
        print(f"{name:14} {row['compile_s']:9.1f} {row['atoll_ms']:9.2f} {row['ort_ms']:9.2f} {row['ratio']:6.2f} "
              f"{diff:9.2e} {row['arena_mib']:9.1f} {row['atoll_peak_mib']:9d} {row['ort_peak_mib']:8d}", flush=True)
        del m, g, call, sess
    ratios = [r["ratio"] for r in rows]
    print(f"geomean ratio {float(np.exp(np.mean(np.log(ratios)))):.3f} over {len(rows)} networks")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": args.threads, "reps": args.reps, "networks": rows}, f, indent=1)


if __name__ == "__main__":
    main()
