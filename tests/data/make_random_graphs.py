#!/usr/bin/env python3
"""Writes tests/data/random_graphs.json: random graphs of 1 to 8 operators over
one NCHW image or one matrix (convolutions of every kind, pooling,
normalizations, elementwise chains, data movement: Pad, Slice, Split, Concat,
Transpose, Flatten, reductions, MatMul, Gemm, Where), odd sizes included.
`atoll run --verify` checks every graph against the reference interpreter
(tests/cli.cmake, both CPU targets). Deterministic: the same arguments give
the same file. It found: Pad with end padding only fused with a consumer (the
padded rows were never written), and a fused producer of a Pad contracted to
a local buffer (the pad's bounds check read the buffer's extents).

Usage: make_random_graphs.py [SEED COUNT OUT]   (default: 16 40 random_graphs.json here)
"""
import json
import os
import random
import sys

def gen_graph(rng, gi):
    names = iter("t%d" % i for i in range(1000))
    wnames = iter("w%d" % i for i in range(1000))
    inputs, weights, nodes = [], [], []
    pool = []  # (name, shape)
    kind = rng.choice(["img", "mat"])
    if kind == "img":
        shp = [rng.choice([1, 1, 2]), rng.choice([3, 4, 8, 16, 17, 24]), rng.choice([5, 7, 8, 14, 15, 16]), rng.choice([5, 7, 9, 14, 16, 19])]
    else:
        shp = [rng.choice([1, 3, 8, 16, 33, 64]), rng.choice([5, 16, 31, 64, 100])]
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
        r = len(s); choice = rng.random()
        if r == 4:
            ops = ["conv", "conv", "dw", "pool", "bn", "unary", "binary", "concat", "gap", "softmax", "slice", "pad", "transpose", "flatten", "inorm", "reduce", "split"]
        elif r == 2:
            ops = ["matmul", "matmul", "gemm", "ln", "softmax", "unary", "binary", "transpose", "reduce", "where", "concat", "slice", "unsq"]
        else:
            ops = ["unary", "binary"]
        op = rng.choice(ops)
        try_shape = None
        if op == "conv":
            k = rng.choice([1, 1, 3, 5]); st = rng.choice([1, 1, 2]); d = rng.choice([1, 1, 2]) if k > 1 else 1
            p = rng.choice([0, k//2 * d]); co = rng.choice([4, 8, 16, 24, 32])
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
            n = rng.choice([8, 16, 33, 64, 96])
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
    return {"name": "g%d" % gi, "inputs": inputs, "weights": weights, "outputs": outs, "nodes": nodes}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    out = sys.argv[3] if len(sys.argv) > 3 else os.path.join(here, "random_graphs.json")
    rng = random.Random(seed)
    graphs = [gen_graph(rng, i) for i in range(count)]
    with open(out, "w") as f:
        json.dump({"atoll": 1, "name": "random_graphs", "graphs": graphs}, f, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
