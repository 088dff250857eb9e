#!/usr/bin/env python3
"""Writes tests/data/random_graphs.json: random graphs of 1 to 8 operators over
one NCHW image, a matrix or a sequence: COUNT graphs of layers (convolutions
of every kind, pooling, normalizations, elementwise chains, MatMul, Gemm) and
COUNT / 4 of layers at sizes the cost models tile, block and pack, and COUNT
of operators (Pad in every mode, Slice with steps, Split, Concat,
Transpose, Reshape, Expand, Gather, reductions, comparisons and Where, casts,
ConvTranspose, pools with ceil_mode and dilations), odd sizes included.
`atoll run --verify` checks every graph against the reference interpreter
(tests/cli.cmake, both CPU targets). Deterministic: the same arguments give
the same file. It found: Pad with end padding only fused with a consumer (the
padded rows were never written), a fused producer of a Pad contracted to a
local buffer (the pad's bounds check read the buffer's extents), and
AveragePool with ceil_mode and a partial window along one axis only.

Usage: make_random_graphs.py [SEED COUNT OUT]   (default: 16 40 random_graphs.json here)
"""
import json
import os
import random
import sys

def layer_graph(rng, gi, large=False):
    """Convolutions, pooling, normalizations, elementwise chains and matrix products;
    `large`: at sizes that the cost models tile, block and pack (16 to 96 channels
    at 14 to 31 pixels, matrices of 64 to 300)."""
    names = iter("t%d" % i for i in range(1000))
    wnames = iter("w%d" % i for i in range(1000))
    inputs, weights, nodes = [], [], []
    pool = []  # (name, shape)
    kind = rng.choice(["img", "mat"])
    if kind == "img":
        shp = [rng.choice([1, 1, 2]), rng.choice([3, 4, 8, 16, 17, 24]), rng.choice([5, 7, 8, 14, 15, 16]), rng.choice([5, 7, 9, 14, 16, 19])]
        if large:
            shp = [1, rng.choice([16, 32, 48, 64]), rng.choice([14, 28, 29]), rng.choice([14, 28, 31])]
    else:
        shp = [rng.choice([1, 3, 8, 16, 33, 64]), rng.choice([5, 16, 31, 64, 100])]
        if large:
            shp = [rng.choice([64, 100, 128]), rng.choice([128, 256, 300])]
    inputs.append({"name": "x", "shape": shp}); pool.append(("x", shp))
    def W(shape, init=None, data=None):
        n = next(wnames); d = {"name": n, "shape": shape}
        if init: d["init"] = init
        if data is not None: d["data"] = data
        weights.append(d); return n
    def add(op, ins, attrs=None, nout=1):
        outs = [next(names) for _ in range(nout)]
        nd = {"op": op, "name": "n%d_%s" % (len(nodes), op.lower()), "inputs": ins, "outputs": outs}
        if attrs: nd["attrs"] = attrs
        nodes.append(nd); return outs
    def outshape_conv(s, co, k, st, p, d):
        return [s[0], co] + [ (s[2+i] + 2*p - d*(k-1) - 1)//st + 1 for i in range(2)]
    steps = rng.randint(1, 8)
    unary = ["Relu", "Sigmoid", "Tanh", "Exp", "Abs", "Neg", "Gelu", "HardSwish", "HardSigmoid", "LeakyRelu", "Erf", "Clip"]
    for _ in range(steps):
        name, s = rng.choice(pool[-3:])
        r = len(s)
        rng.random()  # drawn and unused; kept so that the committed batch stays what this file writes
        if r == 4:
            ops = ["conv", "conv", "dw", "pool", "bn", "unary", "binary", "concat", "gap", "softmax", "slice", "pad", "transpose", "flatten", "inorm", "reduce", "split"]
        elif r == 2:
            ops = ["matmul", "matmul", "gemm", "ln", "softmax", "unary", "binary", "transpose", "reduce", "where", "concat", "slice", "unsq"]
        else:
            ops = ["unary", "binary"]
        op = rng.choice(ops)
        if op == "conv":
            k = rng.choice([1, 1, 3, 5]); st = rng.choice([1, 1, 2]); d = rng.choice([1, 1, 2]) if k > 1 else 1
            p = rng.choice([0, k//2 * d]); co = rng.choice([16, 32, 64, 96] if large else [4, 8, 16, 24, 32])
            g = 1
            if s[1] % 2 == 0 and co % 2 == 0 and rng.random() < 0.2: g = 2
            os_ = outshape_conv(s, co, k, st, p, d)
            if min(os_[2:]) < 1: continue
            w = W([co, s[1]//g, k, k], "uniform(-0.3,0.3)")
            ins = [name, w]
            if rng.random() < 0.5: ins.append(W([co], "uniform(-0.1,0.1)"))
            o = add("Conv", ins, {"kernel_shape": [k, k], "strides": [st, st], "pads": [p]*4, "dilations": [d, d], "group": g})
            pool.append((o[0], os_))
        elif op == "dw":
            k = 3; st = rng.choice([1, 2]); p = 1
            os_ = outshape_conv(s, s[1], k, st, p, 1)
            w = W([s[1], 1, 3, 3], "uniform(-0.3,0.3)")
            o = add("Conv", [name, w], {"kernel_shape": [3, 3], "strides": [st, st], "pads": [1]*4, "group": s[1]})
            pool.append((o[0], os_))
        elif op == "pool":
            k = rng.choice([2, 3]); st = rng.choice([1, 2]); p = rng.choice([0, 1]) if k == 3 else 0
            typ = rng.choice(["MaxPool", "AveragePool"])
            attrs = {"kernel_shape": [k, k], "strides": [st, st], "pads": [p]*4}
            if typ == "AveragePool" and p and rng.random() < 0.5: attrs["count_include_pad"] = 1
            os_ = [s[0], s[1]] + [(s[2+i] + 2*p - k)//st + 1 for i in range(2)]
            if min(os_[2:]) < 1: continue
            o = add(typ, [name], attrs); pool.append((o[0], os_))
        elif op == "bn":
            c = s[1]
            ws = [W([c], "uniform(0.5,1.5)"), W([c]), W([c]), W([c], "uniform(0.5,1.5)")]
            o = add("BatchNormalization", [name] + ws, {"epsilon": 1e-5}); pool.append((o[0], s))
        elif op == "inorm":
            c = s[1]
            o = add("InstanceNormalization", [name, W([c], "uniform(0.5,1.5)"), W([c])], {"epsilon": 1e-5}); pool.append((o[0], s))
        elif op == "unary":
            u = rng.choice(unary)
            if u == "Clip":
                o = add("Clip", [name], {"min": 0.0, "max": 6.0})
            elif u == "LeakyRelu":
                o = add(u, [name], {"alpha": 0.1})
            else:
                o = add(u, [name])
            pool.append((o[0], s))
        elif op == "binary":
            b = rng.choice(["Add", "Mul", "Sub", "Max", "Min", "Div"])
            same = [t for t in pool if t[1] == s and t[0] != name]
            if same and rng.random() < 0.6: other = rng.choice(same)[0]
            else:
                bs = [1]*r; 
                if r == 4: bs[1] = s[1]
                else: bs[-1] = s[-1]
                if rng.random() < 0.3: bs = [s[-1]] if r == 2 else [s[-1]]
                other = W(bs, "uniform(0.5,1.5)" if b == "Div" else None)
            if b == "Div" and other in [t[0] for t in pool]:
                b = "Add"
            o = add(b, [name, other]); pool.append((o[0], s))
        elif op == "concat":
            same = [t for t in pool if len(t[1]) == r and t[1][0] == s[0] and t[1][2:] == s[2:]] if r == 4 else [t for t in pool if len(t[1]) == r and t[1][0] == s[0]]
            other = rng.choice(same)
            o = add("Concat", [name, other[0]], {"axis": 1})
            ns = list(s); ns[1] = s[1] + other[1][1]; pool.append((o[0], ns))
        elif op == "gap":
            o = add(rng.choice(["GlobalAveragePool", "GlobalMaxPool"]), [name]); pool.append((o[0], [s[0], s[1], 1, 1]))
        elif op == "softmax":
            ax = rng.choice([1, -1]) if r == 4 else rng.choice([1, -1, 0])
            o = add(rng.choice(["Softmax", "Softmax", "LogSoftmax"]), [name], {"axis": ax}); pool.append((o[0], s))
        elif op == "slice":
            ax = rng.randrange(1, r) if r > 1 else 0
            if s[ax] < 2: continue
            st = rng.randrange(0, s[ax]//2 + 1); en = rng.randrange(st + 1, s[ax] + 1)
            o = add("Slice", [name], {"starts": [st], "ends": [en], "axes": [ax]})
            ns = list(s); ns[ax] = en - st; pool.append((o[0], ns))
        elif op == "pad":
            pads = [0, 0, rng.randint(0, 2), rng.randint(0, 2), 0, 0, rng.randint(0, 2), rng.randint(0, 2)]
            o = add("Pad", [name], {"pads": pads, "mode": "constant"})
            ns = [s[0], s[1], s[2] + pads[2] + pads[6], s[3] + pads[3] + pads[7]]; pool.append((o[0], ns))
        elif op == "transpose":
            perm = list(range(r)); rng.shuffle(perm)
            o = add("Transpose", [name], {"perm": perm}); pool.append((o[0], [s[i] for i in perm]))
        elif op == "flatten":
            o = add("Flatten", [name], {"axis": 1}); pool.append((o[0], [s[0], s[1]*s[2]*s[3]]))
        elif op == "reduce":
            red = rng.choice(["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"])
            ax = rng.randrange(r); kd = rng.choice([0, 1])
            o = add(red, [name], {"axes": [ax], "keepdims": kd})
            ns = list(s); 
            if kd: ns[ax] = 1
            else: del ns[ax]
            if not ns: ns = []
            pool.append((o[0], ns))
        elif op == "split":
            if s[1] < 2: continue
            a = s[1] // 2
            o = add("Split", [name], {"axis": 1, "split": [a, s[1] - a]}, nout=2)
            pool.append((o[0], [s[0], a, s[2], s[3]])); pool.append((o[1], [s[0], s[1] - a, s[2], s[3]]))
        elif op == "matmul":
            n = rng.choice([128, 200, 256] if large else [8, 16, 33, 64, 96])
            o = add("MatMul", [name, W([s[1], n], "uniform(-0.2,0.2)")]); pool.append((o[0], [s[0], n]))
        elif op == "gemm":
            n = rng.choice([8, 16, 33, 64]); tb = rng.choice([0, 1])
            w = W([n, s[1]] if tb else [s[1], n], "uniform(-0.2,0.2)")
            o = add("Gemm", [name, w, W([n])], {"transB": tb, "alpha": 0.5, "beta": 2.0}); pool.append((o[0], [s[0], n]))
        elif op == "ln":
            o = add("LayerNormalization", [name, W([s[-1]], "uniform(0.5,1.5)"), W([s[-1]])], {"axis": -1, "epsilon": 1e-5}); pool.append((o[0], s))
        elif op == "where":
            c = add("Greater", [name, W([s[-1]])])
            o = add("Where", [c[0], name, W([1])]); pool.append((o[0], s))
        elif op == "unsq":
            o = add("Unsqueeze", [name], {"axes": [1]}); pool.append((o[0], [s[0], 1, s[1]]))
    outs = [pool[-1][0]]
    if len(pool) > 3 and rng.random() < 0.3 and pool[-2][0] != "x": outs.append(pool[-2][0])
    if outs == ["x"]: 
        o = add("Relu", ["x"]); outs = [o[0]]
    return {"name": ("large%d" if large else "layers%d") % gi, "inputs": inputs, "weights": weights, "outputs": outs, "nodes": nodes}


def op_graph(rng, gi):
    """Data movement, reductions, comparisons, casts and the less common window ops."""
    cnt = [0]
    def nm(p="t"):
        cnt[0] += 1; return "%s%d" % (p, cnt[0])
    inputs, weights, nodes = [], [], []
    pool = []
    kind = rng.choice(["img", "mat", "seq"])
    if kind == "img":
        shp = [rng.choice([1, 2]), rng.choice([3, 4, 6, 8, 17]), rng.choice([4, 6, 9, 13]), rng.choice([4, 7, 10, 13])]
    elif kind == "mat":
        shp = [rng.choice([1, 3, 8, 33]), rng.choice([5, 16, 31, 64])]
    else:
        shp = [rng.choice([1, 2, 3]), rng.choice([4, 7, 16]), rng.choice([8, 12, 33])]
    inputs.append({"name": "x", "shape": shp}); pool.append(("x", shp))
    def W(shape, init=None, data=None):
        n = nm("w"); d = {"name": n, "shape": shape}
        if init: d["init"] = init
        if data is not None: d["data"] = data
        weights.append(d); return n
    def add(op, ins, attrs=None, nout=1):
        outs = [nm() for _ in range(nout)]
        nd = {"op": op, "name": "n%d_%s" % (len(nodes), op.lower()), "inputs": ins, "outputs": outs}
        if attrs: nd["attrs"] = attrs
        nodes.append(nd); return outs
    for _ in range(rng.randint(1, 7)):
        name, s = rng.choice(pool[-3:])
        r = len(s)
        if r == 0: continue
        ops = ["unary", "unary", "binary", "pow", "sqrtlog", "cast", "transpose", "reshape", "unsqueeze", "expand", "concat", "slice", "split", "reduce", "softmax", "where", "gather"]
        if r == 4: ops += ["convt", "pool2", "pad2", "softmax4", "ln", "conv"]
        if r == 3: ops += ["bmm", "ln", "pad2"]
        if r == 2: ops += ["gemm", "matmul"]
        op = rng.choice(ops)
        if op == "unary":
            u = rng.choice(["Relu", "Sigmoid", "Tanh", "Abs", "Neg", "Gelu", "HardSigmoid", "Clip", "Erf", "LeakyRelu", "Reciprocal"])
            if u == "Clip": o = add("Clip", [name], {"min": -0.5} if rng.random() < 0.5 else {"max": 0.25})
            elif u == "HardSigmoid": o = add(u, [name], {"alpha": 0.3, "beta": 0.4})
            elif u == "Gelu" and rng.random() < 0.3: o = add(u, [name], {"approximate": "tanh"})
            elif u == "Reciprocal":
                e = add("Exp", [name]); o = add(u, e)
            else: o = add(u, [name])
            pool.append((o[0], s))
        elif op == "binary":
            b = rng.choice(["Add", "Mul", "Sub", "Max", "Min"])
            shape = [rng.choice([1, d]) for d in s]
            if rng.random() < 0.3: shape = shape[rng.randrange(r):]
            o = add(b, [W(shape), name] if rng.random() < 0.3 else [name, W(shape)]); pool.append((o[0], s))
        elif op == "pow":
            a = add("Abs", [name]); o = add("Pow", [a[0], W([1], data=[rng.choice([0.5, 2.0, 3.0])])]); pool.append((o[0], s))
        elif op == "sqrtlog":
            a = add("Exp", [name]); o = add(rng.choice(["Sqrt", "Log"]), a); pool.append((o[0], s))
        elif op == "cast":
            c = add("Cast", [name], {"to": rng.choice(["i32", "f16", "bf16"])}); o = add("Cast", c, {"to": "f32"}); pool.append((o[0], s))
        elif op == "transpose":
            perm = list(range(r)); rng.shuffle(perm); o = add("Transpose", [name], {"perm": perm}); pool.append((o[0], [s[i] for i in perm]))
        elif op == "reshape":
            tot = 1
            for d in s: tot *= d
            if rng.random() < 0.5: shape = [s[0], -1]; ns = [s[0], tot // s[0]]
            else: shape = [tot]; ns = [tot]
            o = add("Reshape", [name], {"shape": shape}); pool.append((o[0], ns))
        elif op == "unsqueeze":
            axis = rng.randrange(r + 1)
            o = add("Unsqueeze", [name], {"axes": [axis]})
            ns = list(s); ns.insert(axis, 1); pool.append((o[0], ns))
        elif op == "expand":
            if 1 in s:
                ns = [d if d != 1 else 3 for d in s]
                o = add("Expand", [name], {"shape": ns}); pool.append((o[0], ns))
        elif op == "concat":
            ax = rng.randrange(r)
            o = add("Concat", [name, name, W(s[:ax] + [2] + s[ax+1:])] , {"axis": ax - r if rng.random() < 0.5 else ax})
            ns = list(s); ns[ax] = 2 * s[ax] + 2; pool.append((o[0], ns))
        elif op == "slice":
            ax = rng.randrange(r)
            if s[ax] < 3: continue
            st = rng.choice([1, -2, 0]); en = rng.choice([s[ax], -1, 100]); step = rng.choice([1, 2, -1])
            if step < 0: st, en = s[ax] - 1, 0
            o = add("Slice", [name], {"starts": [st], "ends": [en], "axes": [ax], "steps": [step]})
            # compute size like numpy
            n = len(range(*slice(st, en, step).indices(s[ax])))
            if n < 1: nodes.pop(); continue
            ns = list(s); ns[ax] = n; pool.append((o[0], ns))
        elif op == "split":
            ax = rng.randrange(r)
            if s[ax] < 3: continue
            a = rng.randrange(1, s[ax])
            o = add("Split", [name], {"axis": ax, "split": [a, s[ax] - a]}, nout=2)
            n1 = list(s); n1[ax] = a; n2 = list(s); n2[ax] = s[ax] - a
            pool.append((o[0], n1)); pool.append((o[1], n2))
        elif op == "reduce":
            red = rng.choice(["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"])
            axes = sorted(rng.sample(range(r), rng.randint(1, r)))
            kd = rng.choice([0, 1])
            src = name
            if red == "ReduceProd": src = add("Sigmoid", [name])[0]
            o = add(red, [src], {"axes": axes, "keepdims": kd})
            ns = [1 if i in axes else d for i, d in enumerate(s)] if kd else [d for i, d in enumerate(s) if i not in axes]
            pool.append((o[0], ns))
        elif op == "softmax":
            o = add(rng.choice(["Softmax", "LogSoftmax"]), [name], {"axis": rng.randrange(-r, r)}); pool.append((o[0], s))
        elif op == "softmax4":
            o = add("Softmax", [name], {"axis": 2}); pool.append((o[0], s))
        elif op == "where":
            c = add(rng.choice(["Less", "Greater", "Equal", "LessOrEqual", "GreaterOrEqual"]), [name, W([s[-1]])])
            if rng.random() < 0.5:
                c2 = add("Greater", [name, W([1], data=[0.0])]); c = add(rng.choice(["And", "Or"]), [c[0], c2[0]])
            if rng.random() < 0.3: c = add("Not", c)
            o = add("Where", [c[0], name, W([1])]); pool.append((o[0], s))
        elif op == "gather":
            ax = rng.randrange(r)
            idx = [rng.randrange(-s[ax], s[ax]) for _ in range(rng.randint(1, 4))]
            o = add("Gather", [name, W([len(idx)], data=idx) ], {"axis": ax})
            weights[-1]["dtype"] = "i64"
            ns = s[:ax] + [len(idx)] + s[ax+1:]; pool.append((o[0], ns))
        elif op == "convt":
            k = rng.choice([2, 3]); st = rng.choice([1, 2]); co = rng.choice([3, 4, 8])
            p = rng.choice([0, 1]) if k == 3 else 0
            o = add("ConvTranspose", [name, W([s[1], co, k, k], "uniform(-0.3,0.3)")], {"kernel_shape": [k, k], "strides": [st, st], "pads": [p]*4})
            ns = [s[0], co] + [(s[2+i] - 1) * st - 2*p + k for i in range(2)]; pool.append((o[0], ns))
        elif op == "pool2":
            k = rng.choice([2, 3]); st = rng.choice([1, 2]); cm = rng.choice([0, 1]); d = rng.choice([1, 2]) if k == 2 else 1
            typ = rng.choice(["MaxPool", "AveragePool"])
            attrs = {"kernel_shape": [k, k], "strides": [st, st], "ceil_mode": cm}
            if typ == "MaxPool" and d > 1: attrs["dilations"] = [d, d]
            ek = d * (k - 1) + 1
            def osz(n):
                v = (n - ek) / st + 1
                import math
                return math.ceil(v) if cm else math.floor(v)
            ns = [s[0], s[1], osz(s[2]), osz(s[3])]
            if cm:
                # ONNX: last window must start inside the input
                for i in range(2):
                    if (ns[2+i] - 1) * st >= s[2+i]: ns[2+i] -= 1
            if min(ns[2:]) < 1: continue
            o = add(typ, [name], attrs); pool.append((o[0], ns))
        elif op == "pad2":
            mode = rng.choice(["constant", "reflect", "edge", "wrap", "constant"])
            pads = [0] * (2 * r)
            for a in range(1, r):
                if s[a] >= 3:
                    pads[a] = rng.randint(0, 2); pads[r + a] = rng.randint(0, 2)
                    if mode == "constant" and rng.random() < 0.3: pads[a] = -1
            attrs = {"pads": pads, "mode": mode}
            if mode == "constant": attrs["constant_value"] = 0.5
            o = add("Pad", [name], attrs)
            ns = [s[a] + pads[a] + pads[r + a] for a in range(r)]; pool.append((o[0], ns))
        elif op == "ln":
            ax = rng.choice([-1, -2])
            sh = s[ax:]
            o = add("LayerNormalization", [name, W(sh, "uniform(0.5,1.5)"), W(sh)], {"axis": ax}); pool.append((o[0], s))
        elif op == "conv":
            k = rng.choice([1, 3]); co = s[1] * rng.choice([1, 2]); g = rng.choice([1, s[1]])
            if k == 3 and min(s[2:]) < 3: continue
            st = rng.choice([1, 2]); d = rng.choice([1, 2]) if k == 3 and min(s[2:]) >= 5 else 1
            ek = d * (k - 1) + 1
            attrs = {"kernel_shape": [k, k], "strides": [st, st], "group": g, "dilations": [d, d]}
            if rng.random() < 0.3 and k == 3: attrs["auto_pad"] = "SAME_UPPER"; ns = [s[0], co] + [(s[2+i] + st - 1) // st for i in range(2)]
            else: attrs["pads"] = [0, 1, 1, 0] if k == 3 else [0]*4; ns = [s[0], co] + [(s[2+i] + (1 if k == 3 else 0) - ek) // st + 1 for i in range(2)]
            if min(ns[2:]) < 1: continue
            o = add("Conv", [name, W([co, s[1] // g, k, k], "uniform(-0.3,0.3)"), W([co])], attrs); pool.append((o[0], ns))
        elif op == "bmm":
            n = rng.choice([5, 16, 20])
            o = add("MatMul", [name, W([s[0], s[2], n] if rng.random() < 0.5 else [s[2], n], "uniform(-0.3,0.3)")]); pool.append((o[0], [s[0], s[1], n]))
        elif op == "gemm":
            n = rng.choice([7, 16, 40]); ta = rng.choice([0, 1])
            src = name
            if ta: src = add("Transpose", [name], {"perm": [1, 0]})[0]
            o = add("Gemm", [src, W([s[1], n], "uniform(-0.3,0.3)"), W([n])], {"transA": ta}); pool.append((o[0], [s[0], n]))
        elif op == "matmul":
            n = rng.choice([7, 16, 40])
            o = add("MatMul", [name, W([s[1], n], "uniform(-0.3,0.3)")]); pool.append((o[0], [s[0], n]))
    outs = [pool[-1][0]]
    if outs == ["x"]: outs = [add("Relu", ["x"])[0]]
    return {"name": "ops%d" % gi, "inputs": inputs, "weights": weights, "outputs": outs, "nodes": nodes}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    out = sys.argv[3] if len(sys.argv) > 3 else os.path.join(here, "random_graphs.json")
    rng = random.Random(seed)
    graphs = [layer_graph(rng, i) for i in range(count)]
    rng = random.Random(seed + 1)
    graphs += [op_graph(rng, i) for i in range(count)]
    rng = random.Random(seed + 2)
    graphs += [layer_graph(rng, i, large=True) for i in range(count // 4)]
    with open(out, "w") as f:
        json.dump({"atoll": 1, "name": "random_graphs", "graphs": graphs}, f, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
