#!/usr/bin/env python3
"""Second oracle for ONNX models: runs each model with `atoll run --inputs
--dump` and with onnxruntime on the same random inputs, and compares every
output. Needs numpy, onnx and onnxruntime (scripts/test.sh installs them in
a virtual environment).

usage: check_onnxruntime.py ATOLL MODEL.onnx [MODEL.onnx ...] [--target T]
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort

DTYPES = {1: np.float32, 10: np.float16, 3: np.int8, 6: np.int32, 7: np.int64, 9: np.bool_}
SYMBOLIC_VALUE = 5


def graph_name(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    name = re.sub(r"[^A-Za-z0-9_]", "_", stem) or "model"
    return "_" + name if name[0].isdigit() else name


def make_inputs(model, rng):
    inits = {t.name for t in model.graph.initializer}
    feeds, params = {}, {}
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        shape = []
        for d in tt.shape.dim:
            if d.HasField("dim_value"):
                shape.append(d.dim_value)
            else:
                params[re.sub(r"[^A-Za-z0-9_]", "_", d.dim_param)] = SYMBOLIC_VALUE
                shape.append(SYMBOLIC_VALUE)
        dtype = DTYPES[tt.elem_type]
        if dtype == np.bool_:
            feeds[vi.name] = rng.random(shape) < 0.5
        elif np.issubdtype(dtype, np.integer):
            feeds[vi.name] = rng.integers(-8, 9, size=shape).astype(dtype)
        else:
            feeds[vi.name] = rng.uniform(-1, 1, size=shape).astype(dtype)
    return feeds, params


def npy_name(name):
    out = "".join(c if c.isalnum() or c in "_.-" else "%%%02X" % ord(c) for c in name)
    return ("%2E" + out[1:] if out.startswith(".") else out) + ".npy"


def check(atoll, path, target):
    rng = np.random.default_rng(11)
    model = onnx.load(path)
    feeds, params = make_inputs(model, rng)
    expected = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)
    name = graph_name(path)
    with tempfile.TemporaryDirectory() as work:
        os.makedirs(os.path.join(work, "in", name))
        for k, v in feeds.items():
            np.save(os.path.join(work, "in", name, npy_name(k)), v)
        cmd = [atoll, "run", path, "--target", target, "--inputs", os.path.join(work, "in"),
               "--dump", os.path.join(work, "out"), "--quiet"]
        for k, v in params.items():
            cmd += ["--param", "%s=%d" % (k, v)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            return "atoll failed (exit %d): %s" % (r.returncode, r.stderr.strip())
        for vi, want in zip(model.graph.output, expected):
            got = np.load(os.path.join(work, "out", name, npy_name(vi.name)))
            if got.shape != want.shape:
                return "output '%s': shape %s, onnxruntime %s" % (vi.name, got.shape, want.shape)
            if not np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-4, atol=1e-5):
                err = np.abs(got.astype(np.float64) - want.astype(np.float64)).max()
                return "output '%s' differs from onnxruntime's (max abs error %.3g)" % (vi.name, err)
    return None


def main():
    args = sys.argv[1:]
    target = "cpu"
    if "--target" in args:
        i = args.index("--target")
        target = args[i + 1]
        del args[i:i + 2]
    atoll, models = args[0], args[1:]
    failed = 0
    for path in models:
        why = check(atoll, path, target)
        print("%-40s %s" % (os.path.basename(path), "ok" if why is None else "FAIL: " + why))
        failed += why is not None
    print("%d/%d models match onnxruntime" % (len(models) - failed, len(models)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
