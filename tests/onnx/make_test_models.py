#!/usr/bin/env python3
"""Writes the ONNX models of Atoll's tests (needs the onnx package from pip):

- tests/onnx/models/*.onnx: valid models that `atoll run --verify` checks in
  CI and tests/onnx/check_onnxruntime.py compares with onnxruntime;
- tests/errors/onnx_*.onnx: models that must fail with a clear message.

The files are committed, so CI needs no Python to read them; run this again
after changing it: python3 tests/onnx/make_test_models.py
"""
import os
import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "models")
ERRORS = os.path.join(HERE, "..", "errors")
rng = np.random.default_rng(7)


def arr(shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def init(name, value):
    return nh.from_array(np.asarray(value), name)


def model(nodes, inputs, outputs, inits, opset, name="g", ir=None):
    g = h.make_graph(nodes, name, inputs, outputs, inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)], producer_name="atoll-tests")
    if ir is not None:
        m.ir_version = ir
    return m


def vi(name, shape, t=T.FLOAT):
    return h.make_tensor_value_info(name, t, shape)


def save(m, path, check=True):
    if check:
        onnx.checker.check_model(m)
    onnx.save(m, path)


def convnet():
    """Conv, BatchNormalization, Relu, MaxPool, a shape sub-graph that a
    PyTorch export makes for flatten, Gemm, Dropout and Softmax."""
    nodes = [
        h.make_node("Conv", ["input.1", "conv.w", "conv.b"], ["c"], name="/conv/Conv", pads=[1, 1, 1, 1]),
        h.make_node("BatchNormalization", ["c", "bn.g", "bn.b", "bn.m", "bn.v"], ["bn"], name="/bn/BN", epsilon=1e-5),
        h.make_node("Relu", ["bn"], ["r"], name="/relu/Relu"),
        h.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        h.make_node("Shape", ["p"], ["s"]),
        h.make_node("Constant", [], ["idx0"], value=nh.from_array(np.array(0, dtype=np.int64))),
        h.make_node("Gather", ["s", "idx0"], ["n0"], axis=0),
        h.make_node("Unsqueeze", ["n0", "ax"], ["n0u"]),
        h.make_node("Constant", [], ["minus1"], value=nh.from_array(np.array([-1], dtype=np.int64))),
        h.make_node("Concat", ["n0u", "minus1"], ["newshape"], axis=0),
        h.make_node("Reshape", ["p", "newshape"], ["flat"]),
        h.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["logits"], transB=1),
        h.make_node("Dropout", ["logits"], ["d"]),
        h.make_node("Softmax", ["d"], ["out"], axis=1),
    ]
    inits = [init("conv.w", arr((4, 3, 3, 3))), init("conv.b", arr(4)), init("bn.g", arr(4, 0.5, 1.5)),
             init("bn.b", arr(4)), init("bn.m", arr(4)), init("bn.v", arr(4, 0.5, 1.5)),
             init("fc.w", arr((10, 4 * 3 * 5))), init("fc.b", arr(10)), init("ax", np.array([0], np.int64))]
    return model(nodes, [vi("input.1", [2, 3, 7, 11])], [vi("out", [2, 10])], inits, 17, "torch-jit-export")


def opset7():
    """Opset 7-9 rules: Softmax over the flattened trailing dimensions, Sum and
    Mean of three, Pad with its `pads`/`value` attributes, BatchNormalization
    with `spatial`, Clip with `min`/`max` attributes, Unsqueeze and ReduceMean
    with `axes` attributes."""
    nodes = [
        h.make_node("Sum", ["x", "y", "z"], ["s"]),
        h.make_node("Mean", ["x", "y", "z"], ["m"]),
        h.make_node("Mul", ["s", "m"], ["sm"]),
        h.make_node("Softmax", ["sm"], ["soft"], axis=1),
        h.make_node("Pad", ["soft"], ["padded"], pads=[0, 0, 1, 0, 0, 0, 0, 2], value=0.5),
        h.make_node("BatchNormalization", ["padded", "g", "b", "mu", "var"], ["bn"], spatial=1, epsilon=1e-3),
        h.make_node("Clip", ["bn"], ["clipped"], min=-0.5, max=0.8),
        h.make_node("ReduceMean", ["clipped"], ["red"], axes=[3], keepdims=0),
        h.make_node("Unsqueeze", ["red"], ["out"], axes=[1]),
    ]
    inits = [init("g", arr(3, 0.5, 1.5)), init("b", arr(3)), init("mu", arr(3)), init("var", arr(3, 0.5, 1.5))]
    ins = [vi("x", [2, 3, 4, 5]), vi("y", [2, 3, 4, 5]), vi("z", [2, 3, 4, 5])]
    return model(nodes, ins, [vi("out", [2, 1, 3, 5])], inits, 7)


def opset18():
    """Constant inputs of opsets 13 and 18: Squeeze/Unsqueeze/ReduceSum axes,
    Split's split, Clip's bounds; the reductions that expand (ReduceL2,
    ReduceLogSumExp, ReduceSumSquare, ReduceL1); Range, ConstantOfShape and
    Expand folded; Where, Cast and an embedding Gather."""
    nodes = [
        h.make_node("Split", ["x", "split"], ["a", "b"], axis=1),
        h.make_node("ReduceL2", ["a", "axes1"], ["l2"], keepdims=1),
        h.make_node("ReduceLogSumExp", ["b", "axes1"], ["lse"], keepdims=1),
        h.make_node("Add", ["l2", "lse"], ["t"]),
        h.make_node("ReduceSumSquare", ["x", "axes1"], ["ss"], keepdims=1),
        h.make_node("ReduceL1", ["x", "axes1"], ["l1"], keepdims=1),
        h.make_node("Sub", ["ss", "l1"], ["u"]),
        h.make_node("Add", ["t", "u"], ["tu"]),
        h.make_node("Squeeze", ["tu", "axes1"], ["sq"]),
        h.make_node("Clip", ["sq", "lo", "hi"], ["cl"]),
        h.make_node("Constant", [], ["start"], value=nh.from_array(np.array(0.0, np.float32))),
        h.make_node("Constant", [], ["limit"], value=nh.from_array(np.array(6.0, np.float32))),
        h.make_node("Constant", [], ["delta"], value=nh.from_array(np.array(1.0, np.float32))),
        h.make_node("Range", ["start", "limit", "delta"], ["ramp"]),
        h.make_node("ConstantOfShape", ["cshape"], ["ones"], value=nh.from_array(np.array([0.25], np.float32))),
        h.make_node("Mul", ["ramp", "ones"], ["ramp2"]),
        h.make_node("Expand", ["ramp2", "eshape"], ["ramp3"]),
        h.make_node("Add", ["cl", "ramp3"], ["v"]),
        h.make_node("Greater", ["v", "zero"], ["pos"]),
        h.make_node("Neg", ["v"], ["negv"]),
        h.make_node("Where", ["pos", "v", "negv"], ["w"]),
        h.make_node("Cast", ["pos"], ["posf"], to=T.FLOAT),
        h.make_node("Add", ["w", "posf"], ["out1"]),
        h.make_node("Gather", ["table", "ids"], ["emb"], axis=0),
        h.make_node("Unsqueeze", ["emb", "axes0"], ["out2"]),
    ]
    inits = [init("split", np.array([2, 3], np.int64)), init("axes1", np.array([1], np.int64)),
             init("axes0", np.array([0], np.int64)), init("lo", np.array(-1.0, np.float32)),
             init("hi", np.array(6.0, np.float32)), init("cshape", np.array([6], np.int64)),
             init("eshape", np.array([4, 6], np.int64)), init("zero", np.array(0.5, np.float32)),
             init("table", arr((10, 8))), init("ids", np.array([[1, 3], [9, 0]], np.int64))]
    outs = [vi("out1", [4, 6]), vi("out2", [1, 2, 2, 8])]
    return model(nodes, [vi("x", [4, 5, 6])], outs, inits, 18)


def transformer_bits():
    """Opset 17-21: LayerNormalization, Gelu (opset 20), MatMul with a
    broadcast weight, Transpose, Softmax on the last axis, Slice with
    constant inputs, Concat."""
    nodes = [
        h.make_node("LayerNormalization", ["x", "ln.g", "ln.b"], ["ln"], axis=-1, epsilon=1e-5),
        h.make_node("MatMul", ["ln", "w1"], ["h1"]),
        h.make_node("Gelu", ["h1"], ["g1"]),
        h.make_node("Transpose", ["g1"], ["tr"], perm=[0, 2, 1]),
        h.make_node("MatMul", ["g1", "tr"], ["scores"]),
        h.make_node("Softmax", ["scores"], ["att"], axis=-1),
        h.make_node("Slice", ["att", "starts", "ends", "axes"], ["sl"]),
        h.make_node("Concat", ["sl", "sl"], ["out"], axis=2),
    ]
    inits = [init("ln.g", arr(16, 0.5, 1.5)), init("ln.b", arr(16)), init("w1", arr((16, 12))),
             init("starts", np.array([1], np.int64)), init("ends", np.array([4], np.int64)),
             init("axes", np.array([2], np.int64))]
    return model(nodes, [vi("x", [2, 5, 16])], [vi("out", [2, 5, 6])], inits, 21)


def attention_loss():
    """Opset 23 expansions: RotaryEmbedding on the queries, a causal
    grouped-query Attention (4 query heads, 2 key/value heads, 3-D form),
    SoftmaxCrossEntropyLoss with class weights and an ignored class (its
    log-probabilities as the second output), NegativeLogLikelihoodLoss
    summed. The class labels are computed at run time from a float input."""
    nodes = [
        h.make_node("MatMul", ["x", "wq"], ["q"]),
        h.make_node("MatMul", ["x", "wk"], ["k"]),
        h.make_node("MatMul", ["x", "wv"], ["v"]),
        h.make_node("RotaryEmbedding", ["q", "cos", "sin", "pos"], ["q_rot"], num_heads=4),
        h.make_node("Attention", ["q_rot", "k", "v"], ["att"], q_num_heads=4, kv_num_heads=2, is_causal=1),
        h.make_node("MatMul", ["att", "wo"], ["logits"]),
        h.make_node("Transpose", ["logits"], ["scores"], perm=[0, 2, 1]),
        h.make_node("Sigmoid", ["labels_raw"], ["lp"]),
        h.make_node("Mul", ["lp", "classes"], ["lc"]),
        h.make_node("Cast", ["lc"], ["labels"], to=T.INT64),
        h.make_node("SoftmaxCrossEntropyLoss", ["scores", "labels", "cw"], ["loss", "log_prob"],
                    reduction="mean", ignore_index=2),
        h.make_node("NegativeLogLikelihoodLoss", ["log_prob", "labels"], ["nll"], reduction="sum"),
    ]
    half = 2  # rotary pairs per head of 4
    angles = np.arange(8)[:, None] / (10000.0 ** (np.arange(half)[None, :] / half))
    inits = [init("wq", arr((16, 16))), init("wk", arr((16, 8))), init("wv", arr((16, 8))),
             init("wo", arr((16, 5))), init("cos", np.cos(angles).astype(np.float32)),
             init("sin", np.sin(angles).astype(np.float32)),
             init("pos", np.array([[0, 1, 2, 3, 4, 5], [2, 3, 4, 5, 6, 7]], np.int64)),
             init("classes", np.array(4.999, np.float32)), init("cw", arr(5, 0.5, 2.0))]
    return model(nodes, [vi("x", [2, 6, 16]), vi("labels_raw", [2, 6])],
                 [vi("att", [2, 6, 16]), vi("loss", []), vi("log_prob", [2, 5, 6]), vi("nll", [])], inits, 23)


def attention_cache():
    """Opset 23 Attention in 4-D form with a key/value cache (past in,
    present out), a float mask over all the keys, softcap and
    the scores with the mask as qk_matmul_output (mode 2)."""
    nodes = [h.make_node("Attention", ["q", "k", "v", "mask", "past_k", "past_v"],
                         ["y", "present_k", "present_v", "qk"], softcap=4.0, qk_matmul_output_mode=2)]
    return model(nodes, [vi("q", [2, 3, 4, 8]), vi("k", [2, 3, 2, 8]), vi("v", [2, 3, 2, 6]), vi("mask", [4, 7]),
                         vi("past_k", [2, 3, 5, 8]), vi("past_v", [2, 3, 5, 6])],
                 [vi("y", [2, 3, 4, 6]), vi("present_k", [2, 3, 7, 8]), vi("present_v", [2, 3, 7, 6]),
                  vi("qk", [2, 3, 4, 7])], [], 23)


def symbolic():
    """A symbolic batch dimension (dim_param) that stays a parameter."""
    nodes = [h.make_node("MatMul", ["x", "w"], ["mm"]), h.make_node("Add", ["mm", "b"], ["a"]),
             h.make_node("Relu", ["a"], ["y"])]
    inits = [init("w", arr((16, 8))), init("b", arr(8))]
    return model(nodes, [vi("x", ["batch", 16])], [vi("y", ["batch", 8])], inits, 14)


def external():
    """Weights in an external data file beside the model."""
    m = symbolic()
    onnx.save(m, os.path.join(MODELS, "external.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="external.weights", size_threshold=0)


def errors():
    x = vi("x", [2, 3])
    ok = model([h.make_node("Relu", ["x"], ["y"])], [x], [vi("y", [2, 3])], [init("w", arr((64, 64)))], 17)
    # An operator Atoll does not have (a Loop with a body graph).
    body = h.make_graph([h.make_node("Identity", ["c"], ["c_out"])], "body",
                        [vi("i", [], T.INT64), vi("c", [], T.BOOL)], [vi("c_out", [], T.BOOL)])
    loop = model([h.make_node("Loop", ["n", "cond"], [], name="Loop_12", body=body)],
                 [vi("n", [], T.INT64), vi("cond", [], T.BOOL)], [vi("y", [2, 3])], [], 17)
    save(loop, os.path.join(ERRORS, "onnx_unsupported_op.onnx"), check=False)
    # A truncated file: the last bytes of an initializer cut off.
    data = ok.SerializeToString()
    with open(os.path.join(ERRORS, "onnx_truncated.onnx"), "wb") as f:
        f.write(data[: len(data) * 2 // 3])
    # Not a protobuf at all.
    with open(os.path.join(ERRORS, "onnx_wrong_magic.onnx"), "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + bytes(range(200)))
    open(os.path.join(ERRORS, "onnx_empty.onnx"), "wb").close()
    # A cycle: a <- b <- a.
    cyc = model([h.make_node("Add", ["x", "b"], ["a"], name="add_a"), h.make_node("Relu", ["a"], ["b"], name="relu_b")],
                [x], [vi("b", [2, 3])], [], 17)
    save(cyc, os.path.join(ERRORS, "onnx_cycle.onnx"), check=False)
    # An element type Atoll has no dtype for.
    dbl = model([h.make_node("Relu", ["x"], ["y"])], [vi("x", [2, 3], T.UINT16)], [vi("y", [2, 3], T.UINT16)], [], 17)
    save(dbl, os.path.join(ERRORS, "onnx_unknown_dtype.onnx"))
    # External data whose file is missing.
    ext = model([h.make_node("Add", ["x", "w"], ["y"])], [x], [vi("y", [2, 3])], [init("w", arr((2, 3)))], 17)
    onnx.external_data_helper.convert_model_to_external_data(ext, location="missing.bin", size_threshold=0)
    save(ext, os.path.join(ERRORS, "onnx_missing_external.onnx"), check=False)
    os.remove(os.path.join(ERRORS, "missing.bin"))  # onnx.save wrote it: the test needs it absent
    # A node of another domain.
    ms = model([h.make_node("FusedConv", ["x"], ["y"], name="fc1", domain="com.microsoft")], [x], [vi("y", [2, 3])], [], 17)
    ms.opset_import.append(h.make_opsetid("com.microsoft", 1))
    save(ms, os.path.join(ERRORS, "onnx_other_domain.onnx"), check=False)
    # Shapes that do not match.
    mm = model([h.make_node("MatMul", ["x", "w"], ["y"], name="mm")], [x], [vi("y", [2, 5])], [init("w", arr((4, 5)))], 17)
    save(mm, os.path.join(ERRORS, "onnx_shape_mismatch.onnx"), check=False)
    # A shape computation on a symbolic dimension.
    sym = model([h.make_node("Shape", ["x"], ["s"], name="shape_of_x"), h.make_node("Reshape", ["x", "s"], ["y"])],
                [vi("x", ["N", 3])], [vi("y", ["N", 3])], [], 17)
    save(sym, os.path.join(ERRORS, "onnx_symbolic_shape.onnx"))
    # A node reading a tensor that nothing produces.
    unk = model([h.make_node("Relu", ["nowhere"], ["y"], name="r")], [x], [vi("y", [2, 3])], [], 17)
    save(unk, os.path.join(ERRORS, "onnx_unknown_tensor.onnx"), check=False)


def main():
    os.makedirs(MODELS, exist_ok=True)
    for name, make in [("convnet", convnet), ("opset7", opset7), ("opset18", opset18),
                       ("transformer_bits", transformer_bits), ("symbolic", symbolic)]:
        save(make(), os.path.join(MODELS, name + ".onnx"))
    external()
    errors()
    # Last, so that the random weights of the models above stay as they were.
    for name, make in [("attention_loss", attention_loss), ("attention_cache", attention_cache)]:
        save(make(), os.path.join(MODELS, name + ".onnx"))


if __name__ == "__main__":
    main()
