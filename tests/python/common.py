"""Graphs and numpy references shared by the Python package's tests."""
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]


def relu_graph(name="relu", shape=(4, 8), dtype="f32"):
    """y = Relu(x), one graph object of the batch format (a dict)."""
    return {
        "name": name,
        "inputs": [{"name": "x", "shape": list(shape), "dtype": dtype}],
        "outputs": ["y"],
        "nodes": [{"op": "Relu", "inputs": ["x"], "outputs": ["y"]}],
    }


def matmul_relu_graph(name="mm_relu", k=8, n=4, dtype="f32", n_max=64):
    """y = Relu(x @ w) with x of shape [N, k] (N symbolic, 1 to n_max) and w [k, n]."""
    return {
        "name": name,
        "params": {"N": {"min": 1, "max": n_max}},
        "inputs": [{"name": "x", "shape": ["N", k], "dtype": dtype}],
        "weights": [{"name": "w", "shape": [k, n], "dtype": dtype}],
        "outputs": ["y"],
        "nodes": [
            {"op": "MatMul", "inputs": ["x", "w"], "outputs": ["h"]},
            {"op": "Relu", "inputs": ["h"], "outputs": ["y"]},
        ],
    }


def conv2d(x, w, pads=(0, 0, 0, 0), strides=(1, 1), group=1):
    """ONNX Conv (NCHW, OIHW, no bias) in float64."""
    top, left, bottom, right = pads
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (top, bottom), (left, right)))
    kh, kw = w.shape[2:]
    windows = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))
    windows = windows[:, :, ::strides[0], ::strides[1]]  # N, C, OH, OW, KH, KW
    cin, cout = x.shape[1] // group, w.shape[0] // group
    return np.concatenate([
        np.einsum("nchwij,ocij->nohw", windows[:, g * cin:(g + 1) * cin], w[g * cout:(g + 1) * cout].astype(np.float64))
        for g in range(group)], axis=1)


def batch_norm(x, gamma, beta, mean, var, epsilon):
    """ONNX BatchNormalization (inference) over axis 1, in float64."""
    shape = (1, -1, 1, 1)
    scale = gamma.astype(np.float64) / np.sqrt(var.astype(np.float64) + epsilon)
    return (x - mean.reshape(shape)) * scale.reshape(shape) + beta.reshape(shape)


def rng(seed=0):
    return np.random.default_rng(seed)
