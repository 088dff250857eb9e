"""Writes one graph of an Atoll operator batch (batch-format.md) as an ONNX model (opset 20, or the
first opset that has every operator of the graph: 23 for RMSNormalization, 24 for Swish, 28 for
SpaceToDepth's CRD mode).

Used by bench_blocks.py so that onnxruntime runs the same math as Atoll on the
same data: weights become initializers holding the values Atoll used (read
from `atoll run --dump`), symbolic dimensions take the bench point's values.
Operators are converted one to one; an operator this file does not know (in
particular `Compute`) is refused with UnsupportedOp naming it.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 20  # Gelu exists from opset 20
OPSET_23 = {"RMSNormalization"}  # operators that exist from opset 23 only
OPSET_24 = {"Swish"}  # operators that exist from opset 24 only
IR_VERSION = 10

DTYPES = {"f32": TensorProto.FLOAT, "f16": TensorProto.FLOAT16, "bf16": TensorProto.BFLOAT16,
          "i8": TensorProto.INT8, "i32": TensorProto.INT32, "i64": TensorProto.INT64, "bool": TensorProto.BOOL}
NUMPY = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "i32": np.int32, "i64": np.int64, "bool": np.bool_}

# Operators written one to one (same name, inputs, outputs and attributes in ONNX opset 20).
DIRECT = set("""
Add Sub Mul Div Max Min Pow Relu LeakyRelu Sigmoid Tanh Exp Log Sqrt Reciprocal Neg Abs Erf Gelu
HardSigmoid HardSwish Where Cast Identity Equal Less Greater LessOrEqual GreaterOrEqual Not And Or
MatMul Gemm Conv ConvTranspose MaxPool AveragePool GlobalAveragePool GlobalMaxPool
BatchNormalization LayerNormalization InstanceNormalization Softmax LogSoftmax
ReduceSum ReduceMean ReduceMax ReduceMin ReduceProd
Transpose Reshape Flatten Squeeze Unsqueeze Concat Split Slice Pad Expand Gather Clip
PRelu Elu Selu Softplus Softsign Mod CastLike Tile GatherElements Resize RMSNormalization
ArgMax ArgMin Trilu Sin Cos Tan Asin Acos Atan Sinh Cosh Asinh Acosh Atanh Round IsNaN IsInf Xor
Celu ThresholdedRelu Shrink Swish Hardmax LpNormalization LpPool DepthToSpace SpaceToDepth EyeLike OneHot
""".split())

# Constant inputs that the batch may give as attributes (batch-format.md): (input position, attribute, kind).
ATTR_INPUTS = {
    "Reshape": [(1, "shape", "i64")],
    "Clip": [(1, "min", "same"), (2, "max", "same")],
    "Pad": [(1, "pads", "i64"), (2, "constant_value", "same"), (3, "axes", "i64")],
    "Slice": [(1, "starts", "i64"), (2, "ends", "i64"), (3, "axes", "i64"), (4, "steps", "i64")],
    "Squeeze": [(1, "axes", "i64")],
    "Unsqueeze": [(1, "axes", "i64")],
    "Split": [(1, "split", "i64")],
    "Expand": [(1, "shape", "i64")],
    "Tile": [(1, "repeats", "i64")],
    "Trilu": [(1, "k", "i64")],
    "OneHot": [(1, "depth", "i64")],
    "Resize": [(1, "roi", "f32"), (2, "scales", "f32"), (3, "sizes", "i64")],
    **{r: [(1, "axes", "i64")] for r in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd")},
}
FLOAT_ATTRS = {"epsilon", "alpha", "beta", "momentum", "gamma", "value", "bias", "lambd"}
CAST_TO = {k: v for k, v in DTYPES.items()}


class UnsupportedOp(Exception):
    """An operator (or attribute) that this converter does not write as ONNX."""


def concrete_shape(shape, params):
    """The shape with symbolic dimensions replaced by their values in params."""
    out = []
    for d in shape:
        if isinstance(d, str):
            if d not in params:
                raise ValueError(f"symbolic dimension {d} has no value (give --param {d}=...)")
            out.append(int(params[d]))
        else:
            out.append(int(d))
    return out


def _attr(op, key, value):
    if ((op == "Cast" and key == "to") or (op == "EyeLike" and key == "dtype")) and isinstance(value, str):
        if value not in CAST_TO:
            raise UnsupportedOp(f"{op} to {value}")
        return helper.make_attribute(key, CAST_TO[value])
    if key in FLOAT_ATTRS:
        return helper.make_attribute(key, float(value))
    if isinstance(value, list) and value and all(isinstance(v, (int, float)) for v in value) and \
            any(isinstance(v, float) for v in value):
        return helper.make_attribute(key, [float(v) for v in value])
    return helper.make_attribute(key, value)


def convert_graph(graph, params, tensors, dtypes_out, weights_as_inputs=False, default_dtype="f32"):
    """Returns an onnx.ModelProto for one batch graph.

    graph: the graph's JSON object; params: {symbol: value}; tensors: {name:
    numpy array} for inputs and weights (from --dump; inline `data` is used
    where a name is missing); dtypes_out: {output name: numpy array} giving
    each output's dtype and shape (Atoll's dumped outputs);
    weights_as_inputs: weights become graph inputs instead of initializers.
    """
    def dtype_of(decl):
        return decl.get("dtype", default_dtype)

    def value_of(decl):
        name = decl["name"]
        if name in tensors:
            return np.asarray(tensors[name])
        if "data" in decl:
            shape = concrete_shape(decl.get("shape", []), params)
            return np.asarray(decl["data"], dtype=NUMPY[dtype_of(decl)]).reshape(shape)
        raise ValueError(f"no data for tensor {name} (not in the dump, no inline data)")

    declared = {}  # tensor name -> dtype string (inputs, weights)
    inputs, initializers, feeds = [], [], {}
    for decl in graph["inputs"]:
        declared[decl["name"]] = dtype_of(decl)
        inputs.append(helper.make_tensor_value_info(decl["name"], DTYPES[dtype_of(decl)],
                                                    concrete_shape(decl["shape"], params)))
        feeds[decl["name"]] = value_of(decl)
    for decl in graph.get("weights", []):
        declared[decl["name"]] = dtype_of(decl)
        value = value_of(decl)
        if weights_as_inputs and "data" not in decl:
            inputs.append(helper.make_tensor_value_info(decl["name"], DTYPES[dtype_of(decl)], list(value.shape)))
            feeds[decl["name"]] = value
        else:
            initializers.append(numpy_helper.from_array(value, decl["name"]))

    nodes = []
    for index, node in enumerate(graph["nodes"]):
        op = node["op"]
        name = node.get("name", f"n{index}")
        if op not in DIRECT:
            why = "a custom tensor comprehension has no ONNX operator" if op == "Compute" else "not converted"
            raise UnsupportedOp(f"graph {graph['name']}, node {name}: operator {op} ({why})")
        node_inputs = list(node["inputs"])
        attrs = dict(node.get("attrs", {}))
        for position, key, kind in ATTR_INPUTS.get(op, []):
            if key not in attrs:
                continue
            value = attrs.pop(key)
            if kind == "i64":
                array = np.asarray(value, dtype=np.int64)
            elif kind == "f32":
                array = np.asarray(value, dtype=np.float32)
            else:  # the element type of the node's first input
                first = node_inputs[0]
                dt = declared.get(first, default_dtype)
                array = np.asarray(value, dtype=NUMPY.get(dt, np.float32))
            const_name = f"{name}__{key}"
            initializers.append(numpy_helper.from_array(array, const_name))
            while len(node_inputs) < position:
                node_inputs.append("")
            if len(node_inputs) == position:
                node_inputs.append(const_name)
            else:
                node_inputs[position] = const_name
        if op == "SpaceToDepth" and attrs.get("mode") == "DCR":
            del attrs["mode"]  # the default; the attribute exists from opset 28 only
        if op == "Split" and len(node_inputs) < 2 and "num_outputs" not in attrs:
            attrs["num_outputs"] = len(node["outputs"])  # equal parts: opset 18+ needs the count
        onnx_attrs = [_attr(op, k, v) for k, v in attrs.items()]
        n = helper.make_node(op, node_inputs, list(node["outputs"]), name=name)
        n.attribute.extend(onnx_attrs)
        nodes.append(n)

    outputs = []
    for out in graph["outputs"]:
        ref = dtypes_out[out]
        outputs.append(helper.make_tensor_value_info(out, helper.np_dtype_to_tensor_dtype(ref.dtype), list(ref.shape)))

    g = helper.make_graph(nodes, graph["name"], inputs, outputs, initializer=initializers)
    opset = OPSET
    if any(n.op_type in OPSET_23 for n in nodes):
        opset = 23
    if any(n.op_type in OPSET_24 for n in nodes):
        opset = 24
    if any(n.op_type == "SpaceToDepth" and any(a.name == "mode" for a in n.attribute) for n in nodes):
        opset = 28
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="atoll-bench-blocks")
    model.ir_version = min(IR_VERSION, onnx.IR_VERSION)
    onnx.checker.check_model(model)
    return model, feeds
