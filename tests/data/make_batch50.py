#!/usr/bin/env python3
"""Writes tests/data/batch50.json: 50 graphs of 1 to 20 operators, the samples'
graphs (MLP, ResNet-50 bottleneck, MobileNetV2 inverted residual, BERT
attention and feed-forward halves) and small elementwise / Concat graphs,
repeated with varied shapes. Deterministic: run it again to get the same file."""
import json
import os


def w(name, shape, init=None, data=None):
    d = {"name": name, "shape": shape}
    if init:
        d["init"] = init
    if data is not None:
        d["data"] = data
    return d


def n(op, name, inputs, outputs, attrs=None):
    # Node names become kernel symbols: never a libm name (exp, tanh, ...).
    d = {"op": op, "name": name, "inputs": inputs, "outputs": outputs}
    if attrs:
        d["attrs"] = attrs
    return d


def mlp(name, batch, dims, symbolic=False):
    b = "N" if symbolic else batch
    g = {"name": name, "inputs": [{"name": "x", "shape": [b, dims[0]]}], "weights": [], "nodes": []}
    if symbolic:
        g["params"] = {"N": {"min": 1, "max": batch}}
    x = "x"
    for i, (k, m) in enumerate(zip(dims, dims[1:])):
        g["weights"] += [w(f"w{i}", [k, m], "uniform(-0.1,0.1)"), w(f"b{i}", [m])]
        g["nodes"] += [n("MatMul", f"fc{i}", [x, f"w{i}"], [f"h{i}"]), n("Add", f"bias{i}", [f"h{i}", f"b{i}"], [f"hb{i}"])]
        x = f"hb{i}"
        if i + 2 < len(dims):
            g["nodes"].append(n("Relu", f"relu{i}", [x], [f"a{i}"]))
            x = f"a{i}"
    g["nodes"].append(n("Softmax", "softmax", [x], ["y"], {"axis": -1}))
    g["outputs"] = ["y"]
    return g


def bn(g, tag, c, x, out):
    g["weights"] += [w(f"{tag}_g", [c], "uniform(0.5,1.5)"), w(f"{tag}_b", [c]),
                     w(f"{tag}_m", [c], "uniform(-0.1,0.1)"), w(f"{tag}_v", [c], "uniform(0.5,1.5)")]
    g["nodes"].append(n("BatchNormalization", f"bn_{tag}", [x, f"{tag}_g", f"{tag}_b", f"{tag}_m", f"{tag}_v"], [out],
                        {"epsilon": 1e-5}))


def bottleneck(name, c, mid, h):
    g = {"name": name, "inputs": [{"name": "x", "shape": [1, c, h, h]}], "weights": [], "nodes": []}
    g["weights"] += [w("w1", [mid, c, 1, 1], "uniform(-0.1,0.1)"), w("w2", [mid, mid, 3, 3], "uniform(-0.05,0.05)"),
                     w("w3", [c, mid, 1, 1], "uniform(-0.1,0.1)")]
    g["nodes"].append(n("Conv", "conv1", ["x", "w1"], ["c1"]))
    bn(g, "1", mid, "c1", "b1")
    g["nodes"].append(n("Relu", "relu1", ["b1"], ["r1"]))
    g["nodes"].append(n("Conv", "conv2", ["r1", "w2"], ["c2"], {"pads": [1, 1, 1, 1], "kernel_shape": [3, 3]}))
    bn(g, "2", mid, "c2", "b2")
    g["nodes"].append(n("Relu", "relu2", ["b2"], ["r2"]))
    g["nodes"].append(n("Conv", "conv3", ["r2", "w3"], ["c3"]))
    bn(g, "3", c, "c3", "b3")
    g["nodes"] += [n("Add", "residual", ["b3", "x"], ["s"]), n("Relu", "relu3", ["s"], ["y"])]
    g["outputs"] = ["y"]
    return g


def inverted_residual(name, c, expand, h):
    e = c * expand
    g = {"name": name, "inputs": [{"name": "x", "shape": [1, c, h, h]}], "weights": [], "nodes": []}
    g["weights"] += [w("w_e", [e, c, 1, 1], "uniform(-0.2,0.2)"), w("w_d", [e, 1, 3, 3], "uniform(-0.3,0.3)"),
                     w("w_p", [c, e, 1, 1], "uniform(-0.08,0.08)")]
    g["nodes"].append(n("Conv", "expand", ["x", "w_e"], ["ce"]))
    bn(g, "e", e, "ce", "be")
    g["nodes"].append(n("Clip", "relu6_e", ["be"], ["ae"], {"min": 0.0, "max": 6.0}))
    g["nodes"].append(n("Conv", "depthwise", ["ae", "w_d"], ["cd"], {"group": e, "pads": [1, 1, 1, 1], "kernel_shape": [3, 3]}))
    bn(g, "d", e, "cd", "bd")
    g["nodes"].append(n("Clip", "relu6_d", ["bd"], ["ad"], {"min": 0.0, "max": 6.0}))
    g["nodes"].append(n("Conv", "project", ["ad", "w_p"], ["cp"]))
    bn(g, "p", c, "cp", "bp")
    g["nodes"].append(n("Add", "residual", ["bp", "x"], ["y"]))
    g["outputs"] = ["y"]
    return g


def attention(name, seq, hidden, heads):
    d = hidden // heads
    g = {"name": name, "inputs": [{"name": "x", "shape": [seq, hidden]}], "weights": [], "nodes": []}
    for t in "qkv":
        g["weights"] += [w(f"{t}_w", [hidden, hidden], "uniform(-0.05,0.05)"), w(f"{t}_b", [hidden], "uniform(-0.02,0.02)")]
        g["nodes"] += [n("MatMul", f"{t}_mm", ["x", f"{t}_w"], [f"{t}m"]),
                       n("Add", f"{t}_bias", [f"{t}m", f"{t}_b"], [f"{t}b"]),
                       n("Reshape", f"{t}_split", [f"{t}b"], [f"{t}h"], {"shape": [seq, heads, d]}),
                       n("Transpose", f"{t}_heads", [f"{t}h"], [f"{t}t"], {"perm": [1, 0, 2]})]
    g["weights"].append(w("scale", [], data=1.0 / d ** 0.5))
    g["nodes"] += [n("Transpose", "k_transpose", ["kt"], ["ktt"], {"perm": [0, 2, 1]}),
                   n("MatMul", "scores", ["qt", "ktt"], ["sc"]),
                   n("Mul", "scale_scores", ["sc", "scale"], ["scs"]),
                   n("Softmax", "softmax", ["scs"], ["p"], {"axis": -1}),
                   n("MatMul", "context", ["p", "vt"], ["ctx"]),
                   n("Transpose", "merge_heads", ["ctx"], ["ctxt"], {"perm": [1, 0, 2]}),
                   n("Reshape", "merge", ["ctxt"], ["y"], {"shape": [seq, hidden]})]
    g["outputs"] = ["y"]
    return g  # 19 operators


def ffn(name, seq, hidden, inner):
    g = {"name": name, "inputs": [{"name": "x", "shape": [seq, hidden]}], "weights": [
        w("w_in", [hidden, inner], "uniform(-0.05,0.05)"), w("b_in", [inner], "uniform(-0.02,0.02)"),
        w("w_out", [inner, hidden], "uniform(-0.03,0.03)"), w("b_out", [hidden], "uniform(-0.02,0.02)"),
        w("ln_g", [hidden], "uniform(0.8,1.2)"), w("ln_b", [hidden], "uniform(-0.1,0.1)")], "nodes": [
        n("MatMul", "ffn_in", ["x", "w_in"], ["f1m"]), n("Add", "ffn_in_bias", ["f1m", "b_in"], ["f1"]),
        n("Gelu", "gelu", ["f1"], ["ge"]), n("MatMul", "ffn_out", ["ge", "w_out"], ["f2m"]),
        n("Add", "ffn_out_bias", ["f2m", "b_out"], ["f2"]), n("Add", "residual", ["f2", "x"], ["r"]),
        n("LayerNormalization", "ln", ["r", "ln_g", "ln_b"], ["y"], {"axis": -1, "epsilon": 1e-12})]}
    g["outputs"] = ["y"]
    return g


def chain(name, shape, ops):
    g = {"name": name, "inputs": [{"name": "x", "shape": shape}], "weights": [w("c", [shape[-1]])], "nodes": []}
    x = "x"
    for i, op in enumerate(ops):
        out = "y" if i + 1 == len(ops) else f"t{i}"
        g["nodes"].append(n(op, f"{op.lower()}{i}", [x, "c"] if op in ("Add", "Mul") else [x], [out]))
        x = out
    g["outputs"] = ["y"]
    return g


def concat(name, rows, cols):
    g = {"name": name, "inputs": [{"name": "x", "shape": [1, rows, cols]}], "weights": [], "nodes": [
        n("Relu", "branch_relu", ["x"], ["a"]), n("Neg", "branch_neg", ["x"], ["b"]),
        n("Tanh", "branch_tanh", ["x"], ["c"]), n("Concat", "cat", ["a", "b", "c"], ["abc"], {"axis": 1}),
        n("Exp", "head_exp", ["abc"], ["y"])]}
    g["outputs"] = ["y"]
    return g


def main():
    graphs = []
    for i, (batch, dims) in enumerate([(16, [128, 64, 10]), (32, [256, 128, 64, 10]), (8, [64, 32]),
                                       (64, [784, 256, 10]), (4, [96, 96, 96, 96, 10]), (24, [200, 100, 50])]):
        graphs.append(mlp(f"mlp_{i}", batch, dims))
    graphs += [mlp("mlp_sym_0", 32, [128, 64, 10], True), mlp("mlp_sym_1", 16, [64, 48, 32, 8], True)]
    for i, (c, mid, h) in enumerate([(64, 16, 14), (32, 8, 28), (128, 32, 7), (48, 12, 10), (96, 24, 8), (64, 32, 12)]):
        graphs.append(bottleneck(f"bottleneck_{i}", c, mid, h))
    for i, (c, ex, h) in enumerate([(16, 6, 28), (24, 4, 14), (32, 6, 7), (8, 6, 32), (40, 3, 10), (16, 2, 20)]):
        graphs.append(inverted_residual(f"inverted_residual_{i}", c, ex, h))
    for i, (seq, hidden, heads) in enumerate([(32, 128, 4), (16, 64, 2), (64, 96, 3), (24, 192, 6), (8, 256, 8)]):
        graphs.append(attention(f"attention_{i}", seq, hidden, heads))
    for i, (seq, hidden, inner) in enumerate([(32, 128, 512), (16, 64, 256), (64, 96, 384), (24, 192, 768), (8, 256, 1024)]):
        graphs.append(ffn(f"ffn_{i}", seq, hidden, inner))
    chains = [["Relu"], ["Add", "Relu"], ["Mul", "Sigmoid", "Add"], ["Tanh", "Mul", "Exp", "Relu"], ["Gelu"],
              ["Add", "Gelu", "Mul"], ["Sigmoid"], ["Exp", "Add", "Neg", "Relu", "Tanh"], ["Neg", "Exp"],
              ["Mul", "Add", "Relu", "Mul", "Sigmoid", "Add"], ["Abs"], ["Relu", "Mul"], ["Tanh", "Tanh", "Tanh"],
              ["Add"], ["Abs", "Exp"], ["Relu", "Relu", "Add", "Mul"], ["Sigmoid", "Mul"]]
    shapes = [[64, 64], [8, 128], [3, 33, 17], [256], [2, 4, 8, 16], [100, 30], [7, 9], [16, 16, 4], [512, 8],
              [5, 5, 5], [1000], [32, 48], [4, 4, 4, 4], [129, 3], [6, 70], [12, 40],
              [2, 3, 5, 7]]
    for i, (ops, shape) in enumerate(zip(chains, shapes)):
        graphs.append(chain(f"chain_{i}", shape, ops))
    for i, (rows, cols) in enumerate([(8, 64), (32, 16), (5, 100)]):
        graphs.append(concat(f"concat_{i}", rows, cols))
    assert len(graphs) == 50, len(graphs)
    for g in graphs:
        assert 1 <= len(g["nodes"]) <= 20, (g["name"], len(g["nodes"]))
    batch = {"atoll": 1, "name": "batch50", "graphs": graphs}
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "batch50.json")
    with open(out, "w") as f:
        json.dump(batch, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
