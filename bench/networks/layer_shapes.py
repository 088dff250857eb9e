#!/usr/bin/env python3
"""Every distinct convolution and GEMM of the light model zoo's networks
(onnx/backend/test/data/light), each as a one-operator model, timed by Atoll
and onnxruntime on one thread, interleaved.

The shapes come from the models (ONNX shape inference), not from a list:
a Conv is its input's channels and size, its weight's shape, strides, pads,
dilations and group; a Gemm or MatMul its operands' shapes and transposes.
Each one-operator model reads a random input and random weights (the same
for both runtimes), has a bias where any network's operator of that shape
has one, and batch 1 as the networks have.

usage: PYTHONPATH=build/python build/venv/bin/python bench/networks/layer_shapes.py
           [--models resnet50,squeezenet] [--reps 20] [--threads 1] [--match TEXT]
           [--list] [--no-squares] [--json FILE]
Prints one row per shape: the networks that have it, what it is, its GFLOP,
Atoll's and onnxruntime's medians and the ratio (onnxruntime / Atoll: above
1 is Atoll faster), then the ratios' geomean per kind. The square GEMMs
999^3 to 1025^3 (sizes off the register tile) come last, marked "square".
--list prints the shapes without timing them.
"""
import argparse
import json
import os
import statistics
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper, shape_inference

import atoll

ort.set_default_logger_severity(3)

LIGHT = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")
MODELS = ["bvlc_alexnet", "densenet121", "inception_v1", "inception_v2", "resnet50", "shufflenet",
          "squeezenet", "vgg19", "zfnet512"]


def dims(vi):
    return [d.dim_value if d.HasField("dim_value") else -1 for d in vi.type.tensor_type.shape.dim]


def attr(node, name, default):
    for a in node.attribute:
        if a.name == name:
            return list(a.ints) if a.type == onnx.AttributeProto.INTS else helper.get_attribute_value(a)
    return default


def layers(name):
    """The model's Conv, Gemm and MatMul operators as shape records."""
    m = onnx.load(os.path.join(LIGHT, "light_" + name + ".onnx"))
    # The light models make their weights with ConstantOfShape: their shapes
    # are the constant inputs of those nodes.
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    shapes = {t.name: list(t.dims) for t in m.graph.initializer}
    for n in m.graph.node:
        if n.op_type == "ConstantOfShape" and n.input[0] in inits:
            shapes[n.output[0]] = [int(d) for d in inits[n.input[0]]]
    inferred = shape_inference.infer_shapes(m)
    for vi in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output):
        shapes.setdefault(vi.name, dims(vi))
    out = []
    for n in m.graph.node:
        if n.op_type == "Conv":
            x, w = shapes.get(n.input[0]), shapes.get(n.input[1])
            if not x or not w or len(x) != 4 or -1 in x:
                continue
            k = attr(n, "kernel_shape", w[2:])
            out.append({"kind": "conv", "c": x[1], "h": x[2], "w": x[3], "o": w[0], "kh": k[0], "kw": k[1],
                        "strides": attr(n, "strides", [1, 1]), "pads": attr(n, "pads", [0, 0, 0, 0]),
                        "dilations": attr(n, "dilations", [1, 1]), "group": attr(n, "group", 1),
                        "bias": len(n.input) > 2 and n.input[2] != ""})
        elif n.op_type in ("Gemm", "MatMul"):
            a, b = shapes.get(n.input[0]), shapes.get(n.input[1])
            if not a or not b or len(a) != 2 or len(b) != 2 or -1 in a:
                continue
            ta, tb = (attr(n, "transA", 0), attr(n, "transB", 0)) if n.op_type == "Gemm" else (0, 0)
            m_, k_ = (a[1], a[0]) if ta else (a[0], a[1])
            n_ = b[0] if tb else b[1]
            out.append({"kind": "gemm", "m": m_, "n": n_, "k": k_, "transB": tb,
                        "bias": n.op_type == "Gemm" and len(n.input) > 2 and n.input[2] != ""})
    return out


def key(s):
    return json.dumps(s, sort_keys=True)


def describe(s):
    if s["kind"] == "gemm":
        return f"gemm {s['m']}x{s['n']}x{s['k']}" + (" B^T" if s["transB"] else "")
    p = s["pads"]
    text = (f"conv {s['kh']}x{s['kw']} s{s['strides'][0]} {s['c']}->{s['o']} {s['h']}x{s['w']}"
            f" p{p[0]}" + ("" if len(set(p)) == 1 else "," + ",".join(map(str, p[1:]))))
    if s["group"] > 1:
        text += " dw" if s["group"] == s["c"] == s["o"] else f" g{s['group']}"
    if s["dilations"] != [1, 1]:
        text += f" d{s['dilations'][0]}"
    return text


def gflop(s):
    if s["kind"] == "gemm":
        return 2e-9 * s["m"] * s["n"] * s["k"]
    (sh, sw), (kh, kw), p, (dh, dw) = s["strides"], (s["kh"], s["kw"]), s["pads"], s["dilations"]
    oh = (s["h"] + p[0] + p[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (s["w"] + p[1] + p[3] - dw * (kw - 1) - 1) // sw + 1
    return 2e-9 * s["o"] * oh * ow * (s["c"] // s["group"]) * kh * kw


def model(s, rng):
    """The one-operator model of shape record `s`, random weights."""
    def weight(name, shape, fan_in):
        v = (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        return numpy_helper.from_array(v, name)
    if s["kind"] == "conv":
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, s["c"], s["h"], s["w"]])
        cg = s["c"] // s["group"]
        inits = [weight("W", [s["o"], cg, s["kh"], s["kw"]], cg * s["kh"] * s["kw"])]
        inputs = ["x", "W"]
        if s["bias"]:
            inits.append(weight("B", [s["o"]], 1))
            inputs.append("B")
        node = helper.make_node("Conv", inputs, ["y"], kernel_shape=[s["kh"], s["kw"]], strides=s["strides"],
                                pads=s["pads"], dilations=s["dilations"], group=s["group"])
    else:
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [s["m"], s["k"]])
        wshape = [s["n"], s["k"]] if s["transB"] else [s["k"], s["n"]]
        inits = [weight("W", wshape, s["k"])]
        inputs = ["x", "W"]
        if s["bias"]:
            inits.append(weight("B", [s["n"]], 1))
            inputs.append("B")
        node = helper.make_node("Gemm", inputs, ["y"], transB=s["transB"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph([node], "layer", [x], [y], initializer=inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def time_one(s, rng, reps, threads):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "layer.onnx")
        onnx.save(model(s, rng), path)
        m = atoll.compile(atoll.import_onnx(path), threads=threads)
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    x = rng.standard_normal(m.shape(m.inputs[0])).astype(np.float32)
    ours = m.run({m.inputs[0]: x})[m.outputs[0]]
    theirs = sess.run(None, {"x": x})[0]
    diff = float(np.abs(ours - theirs).max() / max(1e-30, float(np.abs(theirs).max())))
    call = m.bind({m.inputs[0]: x})
    call.run()
    sess.run(None, {"x": x})

    def once(fn):
        t0 = time.perf_counter()
        fn()
        return (time.perf_counter() - t0) * 1e3
    a, o = [], []
    for _ in range(reps):  # interleaved, so that both see the same machine
        a.append(once(call.run))
        o.append(once(lambda: sess.run(None, {"x": x})))
    return statistics.median(a), statistics.median(o), diff


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--match", default="")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--no-squares", dest="squares", action="store_false",
                    help="leave out the square GEMMs 999 to 1025")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    found = {}  # key -> (record, {network: count})
    for name in args.models.split(","):
        for s in layers(name):
            # One case per shape: with a bias where any network's has one.
            rec, where = found.setdefault(key(dict(s, bias=False)), (s, {}))
            rec["bias"] = rec["bias"] or s["bias"]
            where[name] = where.get(name, 0) + 1
    # The square GEMMs the issue watches (sizes off the register tile), not from a model.
    if args.squares:
        for n in (999, 1000, 1023, 1024, 1025):
            s = {"kind": "gemm", "m": n, "n": n, "k": n, "transB": 0, "bias": False}
            found.setdefault(key(s), (s, {"square": 1}))
    rows = []
    rng = np.random.default_rng(0)
    print(f"{'shape':42} {'GFLOP':>7} {'atoll ms':>9} {'ort ms':>9} {'ratio':>6} {'rel diff':>9}  networks")
    for s, where in sorted(found.values(), key=lambda v: (v[0]["kind"], describe(v[0]))):
        text = describe(s)
        if args.match and args.match not in text:
            continue
        nets = ",".join(f"{n}x{c}" if c > 1 else n for n, c in sorted(where.items()))
        if args.list:
            print(f"{text:42} {gflop(s):7.4f}  {nets}")
            continue
        atoll_ms, ort_ms, diff = time_one(s, rng, args.reps, args.threads)
        row = {"shape": text, "record": s, "networks": where, "gflop": round(gflop(s), 4),
               "atoll_ms": round(atoll_ms, 4), "ort_ms": round(ort_ms, 4), "ratio": round(ort_ms / atoll_ms, 3),
               "rel_diff": diff}
        rows.append(row)
        print(f"{text:42} {row['gflop']:7.4f} {atoll_ms:9.3f} {ort_ms:9.3f} {row['ratio']:6.2f} {diff:9.1e}  {nets}",
              flush=True)
    if args.list:
        print(f"{len(found)} distinct shapes")
        return
    for kind in ("conv", "gemm"):
        r = [x["ratio"] for x in rows if x["record"]["kind"] == kind]
        if r:
            print(f"{kind}: {len(r)} shapes, geomean ratio {float(np.exp(np.mean(np.log(r)))):.3f}, "
                  f"{sum(1 for v in r if v >= 1.0)} at 1.0 or above")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": args.threads, "reps": args.reps, "layers": rows}, f, indent=1)


if __name__ == "__main__":
    main()
