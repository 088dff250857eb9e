#!/usr/bin/env python3
"""Writes bench/tune_set.json: the tuning set of issue 37, one graph per
cluster: GEMMs square and odd, ResNet and MobileNet convolutions, attention,
LayerNorm and Softmax, and the samples' clusters (the MLP's layers, BERT's
projections). Every graph is one cluster (a heavy operator and its
epilogue), batch 1.

usage: python3 bench/tune/make_tune_set.py [OUT.json]
"""
import json
import sys


def tensor(name, shape):
    return {"name": name, "shape": list(shape)}


def gemm(name, m, k, n, bias=False, act=None):
    g = {"name": name, "inputs": [tensor("a", (m, k))], "weights": [tensor("w", (k, n))], "outputs": ["y"]}
    nodes = [{"op": "MatMul", "name": "mm", "inputs": ["a", "w"], "outputs": ["c" if (bias or act) else "y"]}]
    last = "c"
    if bias:
        g["weights"].append(tensor("b", (n,)))
        nodes.append({"op": "Add", "name": "bias", "inputs": [last, "b"], "outputs": ["d" if act else "y"]})
        last = "d"
    if act:
        nodes.append({"op": act, "name": "act", "inputs": [last], "outputs": ["y"]})
    g["nodes"] = nodes
    return g


def conv(name, c, h, w, k, r, stride=1, group=1, relu=True):
    pad = r // 2
    g = {"name": name, "inputs": [tensor("x", (1, c, h, w))],
         "weights": [tensor("w", (k, c // group, r, r)), tensor("b", (k,))], "outputs": ["y"]}
    attrs = {"kernel_shape": [r, r], "strides": [stride, stride], "pads": [pad] * 4, "group": group}
    nodes = [{"op": "Conv", "name": "conv", "inputs": ["x", "w", "b"], "outputs": ["c" if relu else "y"],
              "attrs": attrs}]
    if relu:
        nodes.append({"op": "Relu", "name": "relu", "inputs": ["c"], "outputs": ["y"]})
    g["nodes"] = nodes
    return g


def bmm(name, b, m, k, n):
    return {"name": name, "inputs": [tensor("q", (b, m, k)), tensor("kt", (b, k, n))], "outputs": ["y"],
            "nodes": [{"op": "MatMul", "name": "bmm", "inputs": ["q", "kt"], "outputs": ["y"]}]}


def unary(name, op, shape, attrs=None, weights=()):
    g = {"name": name, "inputs": [tensor("x", shape)], "weights": [tensor(n, s) for n, s in weights],
         "outputs": ["y"]}
    node = {"op": op, "name": op.lower(), "inputs": ["x"] + [n for n, _ in weights], "outputs": ["y"]}
    if attrs:
        node["attrs"] = attrs
    g["nodes"] = [node]
    return g


graphs = [
    # GEMMs: square, off the register tile, transformer and MLP shapes.
    gemm("gemm_256", 256, 256, 256),
    gemm("gemm_512", 512, 512, 512),
    gemm("gemm_1024", 1024, 1024, 1024),
    gemm("gemm_odd_100x300x77", 100, 300, 77),
    gemm("gemm_odd_513x257x129", 513, 257, 129, act="Relu"),
    gemm("gemm_bert_qkv_128x768x768", 128, 768, 768, bias=True),
    gemm("gemm_bert_ffn1_128x768x3072", 128, 768, 3072, bias=True, act="Gelu"),
    gemm("gemm_bert_ffn2_128x3072x768", 128, 3072, 768, bias=True),
    gemm("gemm_mlp_fc1_64x784x512", 64, 784, 512, bias=True, act="Relu"),
    gemm("gemm_fc_1x2048x1000", 1, 2048, 1000, bias=True),
    gemm("gemm_vit_197x768x768", 197, 768, 768, bias=True),
    # ResNet convolutions.
    conv("resnet_stem_7x7s2", 3, 224, 224, 64, 7, stride=2),
    conv("resnet_3x3_64_56", 64, 56, 56, 64, 3),
    conv("resnet_3x3_128_28", 128, 28, 28, 128, 3),
    conv("resnet_3x3_256_14", 256, 14, 14, 256, 3),
    conv("resnet_3x3s2_128_56", 128, 56, 56, 128, 3, stride=2),
    conv("resnet_1x1_256to64_56", 256, 56, 56, 64, 1),
    conv("resnet_1x1_64to256_56", 64, 56, 56, 256, 1, relu=False),
    # MobileNet convolutions.
    conv("mobilenet_dw3x3_32_112", 32, 112, 112, 32, 3, group=32),
    conv("mobilenet_dw3x3s2_96_56", 96, 56, 56, 96, 3, stride=2, group=96),
    conv("mobilenet_pw_32to64_112", 32, 112, 112, 64, 1),
    conv("mobilenet_pw_144to24_56", 144, 56, 56, 24, 1, relu=False),
    # Attention.
    bmm("attn_qk_12x128x64x128", 12, 128, 64, 128),
    bmm("attn_av_12x128x128x64", 12, 128, 128, 64),
    unary("attn_softmax_12x128x128", "Softmax", (12, 128, 128), {"axis": -1}),
    # Normalisations and row kernels.
    unary("layernorm_128x768", "LayerNormalization", (128, 768), {"axis": -1},
          weights=[("gamma", (768,)), ("beta", (768,))]),
    unary("softmax_512x512", "Softmax", (512, 512), {"axis": -1}),
    unary("transpose_512x768", "Transpose", (512, 768), {"perm": [1, 0]}),
]

out = sys.argv[1] if len(sys.argv) > 1 else "bench/tune_set.json"
with open(out, "w") as f:
    json.dump({"atoll": 1, "name": "tune_set", "graphs": graphs}, f, indent=1)
    f.write("\n")
print(f"{out}: {len(graphs)} graphs")
