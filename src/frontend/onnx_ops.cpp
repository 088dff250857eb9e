// The per-operator rules of the ONNX reader: which ONNX operators fold into
// constants while reading (Constant, Shape, Size, ConstantOfShape, Range),
// which become aliases (Identity, Dropout), which expand into several Atoll
// operators (Sum, Mean, the ReduceL1/L2/LogSum/LogSumExp/SumSquare family,
// opset 1-12 Softmax, opset 1-6 PRelu), and how attributes of older opsets map to the
// semantics the batch format uses (docs/onnx.md, "Operators").
#include "src/frontend/onnx_import.h"

#include "graph/ir/op_registry.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>

namespace atl::onnx_import {

namespace {

using nlohmann::json;

/// One ONNX node being translated: its inputs, outputs and attributes.
struct NodeIn {
  Importer &im;
  std::vector<std::string> inputs, outputs;
  json attrs;
  int opset;
  const std::string &op;

  std::string input(std::size_t k) const { return k < inputs.size() ? inputs[k] : std::string(); }
  std::string output(std::size_t k) const { return k < outputs.size() ? outputs[k] : std::string(); }
  std::int64_t attr_int(const char *name, std::int64_t dflt) const {
    if (!attrs.contains(name)) return dflt;
    if (!attrs[name].is_number_integer()) im.fail(std::string("attribute '") + name + "' is not an integer");
    return attrs[name].get<std::int64_t>();
  }
  const TensorType &type(std::size_t k) const {
    if (input(k).empty()) im.fail("input " + std::to_string(k) + " is missing");
    return im.value(input(k)).type;
  }
  /// The node as an Atoll node of operator `atoll_op`, as is.
  Node plain(const std::string &atoll_op) const {
    Node n;
    n.op = atoll_op;
    n.inputs = inputs;
    n.outputs = outputs;
    n.attrs = attrs;
    return n;
  }
  /// A node of this translation with its own inputs and outputs.
  Node make(const std::string &atoll_op, std::vector<std::string> in, std::vector<std::string> out,
            json a = json::object()) const {
    Node n;
    n.op = atoll_op;
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    n.attrs = std::move(a);
    return n;
  }
  /// A fresh intermediate tensor name.
  std::string temp(const std::string &what) const { return im.fresh(output(0) + "_" + what); }
  const Tensor &constant_input(std::size_t k, const char *what) const {
    const Tensor *t = input(k).empty() ? nullptr : im.constant(input(k));
    if (!t) im.fail(std::string("input '") + what + "' must be a constant (known when the model is read)");
    return *t;
  }
};

Shape concrete_dims(const NodeIn &n, const TensorType &t, const std::string &what) {
  if (!is_concrete(t.shape))
    n.im.fail(what + " has symbolic dimensions " + sym_shape_to_string(t.shape) + ", which this rule needs fixed");
  return concrete_shape(t.shape);
}

Tensor i64_vector(const std::vector<std::int64_t> &v) {
  Tensor t(DType::I64, {static_cast<std::int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) t.set(static_cast<std::int64_t>(i), static_cast<double>(v[i]));
  return t;
}

// --- constants ---------------------------------------------------------------

void rule_constant(NodeIn &n) {
  const onnx::NodeProto &node = *n.im.node;
  for (const auto &a : node.attribute()) {
    const std::string &name = a.name();
    Tensor t;
    if (name == "value") {
      t = read_tensor(a.t(), n.im.model_dir(), n.im.describe() + ": attribute 'value'");
    } else if (name == "value_float") {
      t = Tensor(DType::F32, {});
      t.set(0, a.f());
    } else if (name == "value_int") {
      t = Tensor(DType::I64, {});
      t.set(0, static_cast<double>(a.i()));
    } else if (name == "value_floats") {
      t = Tensor(DType::F32, {a.floats_size()});
      for (int i = 0; i < a.floats_size(); ++i) t.set(i, a.floats(i));
    } else if (name == "value_ints") {
      t = i64_vector(std::vector<std::int64_t>(a.ints().begin(), a.ints().end()));
    } else {
      n.im.fail("attribute '" + name + "' is not supported (strings and sparse tensors are not)");
    }
    n.im.define_constant(n.output(0), std::move(t));
    return;
  }
  n.im.fail("no value attribute");
}

void rule_shape(NodeIn &n) {
  const TensorType &t = n.type(0);
  auto r = static_cast<std::int64_t>(t.shape.size());
  auto clamp = [&](std::int64_t v) { return std::clamp(v < 0 ? v + r : v, std::int64_t(0), r); };
  std::int64_t start = clamp(n.attr_int("start", 0)), end = clamp(n.attr_int("end", r));
  std::vector<std::int64_t> dims;
  for (std::int64_t k = start; k < end; ++k) {
    const Dim &d = t.shape[static_cast<std::size_t>(k)];
    if (d.is_symbolic())
      n.im.fail("the shape of '" + n.input(0) + "' has the symbolic dimension " + d.symbol +
                ", which a shape computation cannot read while the model is read (fix it with a value)");
    dims.push_back(d.value);
  }
  if (dims.empty()) n.im.fail("the shape is empty (a scalar's, or start >= end), and Atoll has no empty tensors");
  n.im.define_constant(n.output(0), i64_vector(dims));
}

void rule_size(NodeIn &n) {
  Shape s = concrete_dims(n, n.type(0), "input '" + n.input(0) + "'");
  Tensor t(DType::I64, {});
  t.set(0, static_cast<double>(shape_numel(s)));
  n.im.define_constant(n.output(0), std::move(t));
}

void rule_constant_of_shape(NodeIn &n) {
  const Tensor &shape = n.constant_input(0, "input");
  Shape dims;
  std::int64_t total = 1;
  for (double d : shape.data) {
    auto v = static_cast<std::int64_t>(d);
    if (v <= 0) n.im.fail("dimension " + std::to_string(v) + " (Atoll needs positive dimensions)");
    if (total > kMaxTensorElements / v) n.im.fail("the tensor would hold more than 2^32 elements");
    total *= v;
    dims.push_back(v);
  }
  DType dtype = DType::F32;
  double value = 0;
  for (const auto &a : n.im.node->attribute())
    if (a.name() == "value") {
      Tensor v = read_tensor(a.t(), n.im.model_dir(), n.im.describe() + ": attribute 'value'");
      if (v.numel() != 1) n.im.fail("attribute 'value' must hold one element");
      dtype = v.dtype;
      value = v.data[0];
    }
  Tensor t(dtype, dims);
  std::fill(t.data.begin(), t.data.end(), round_to(dtype, value));
  n.im.define_constant(n.output(0), std::move(t));
}

void rule_range(NodeIn &n) {
  const Tensor &start = n.constant_input(0, "start"), &limit = n.constant_input(1, "limit"),
               &delta = n.constant_input(2, "delta");
  if (start.numel() != 1 || limit.numel() != 1 || delta.numel() != 1) n.im.fail("start, limit and delta must be scalars");
  if (delta.data[0] == 0) n.im.fail("delta is 0");
  double count = std::ceil((limit.data[0] - start.data[0]) / delta.data[0]);
  auto len = static_cast<std::int64_t>(std::max(count, 0.0));
  if (len == 0) n.im.fail("the range is empty, and Atoll has no empty tensors");
  if (len > kMaxTensorElements) n.im.fail("the range holds more than 2^32 elements");
  Tensor t(start.dtype, {len});
  for (std::int64_t i = 0; i < len; ++i) t.set(i, start.data[0] + static_cast<double>(i) * delta.data[0]);
  n.im.define_constant(n.output(0), std::move(t));
}

// --- aliases -------------------------------------------------------------------

void rule_identity(NodeIn &n) { n.im.alias(n.output(0), n.input(0)); }

void rule_dropout(NodeIn &n) {
  if (!n.input(2).empty()) {
    const Tensor *training = n.im.constant(n.input(2));
    if (!training || training->numel() != 1 || training->data[0] != 0)
      n.im.fail("training_mode must be a constant false (Atoll compiles inference)");
  }
  n.im.alias(n.output(0), n.input(0));
  if (!n.output(1).empty()) {  // the mask: all true at inference
    Tensor mask(DType::Bool, concrete_dims(n, n.type(0), "input '" + n.input(0) + "'"));
    std::fill(mask.data.begin(), mask.data.end(), 1.0);
    n.im.define_constant(n.output(1), std::move(mask));
  }
}

// --- expansions ----------------------------------------------------------------

/// Sum and Mean: a chain of Adds (Mean then divides by the count).
void rule_sum(NodeIn &n, bool mean) {
  std::vector<std::string> ins;
  for (const std::string &i : n.inputs)
    if (!i.empty()) ins.push_back(i);
  if (ins.empty()) n.im.fail("needs at least one input");
  if (ins.size() == 1 && !mean) return n.im.alias(n.output(0), ins[0]);
  std::string acc = ins[0];
  for (std::size_t k = 1; k < ins.size(); ++k) {
    bool last = k + 1 == ins.size() && !mean;
    std::string out = last ? n.output(0) : n.temp("sum");
    n.im.emit(n.make("Add", {acc, ins[k]}, {out}));
    acc = out;
  }
  if (!mean) return;
  Tensor count(n.type(0).dtype, {});
  count.set(0, static_cast<double>(ins.size()));
  std::string c = n.temp("count");
  n.im.define_constant(c, std::move(count));
  n.im.emit(n.make("Div", {acc, c}, {n.output(0)}));
}

/// ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum, ReduceLogSumExp as an
/// elementwise step, ReduceSum and a final step.
void rule_reduce_family(NodeIn &n, const char *before, const char *after) {
  std::string x = n.input(0);
  if (before) {
    std::string t = n.temp("terms");
    if (std::string(before) == "Square") n.im.emit(n.make("Mul", {x, x}, {t}));
    else n.im.emit(n.make(before, {x}, {t}));
    x = t;
  }
  Node sum = n.plain("ReduceSum");
  sum.inputs[0] = x;
  if (after) sum.outputs = {n.temp("sum")};
  n.im.emit(sum);
  if (after) n.im.emit(n.make(after, {sum.outputs[0]}, {n.output(0)}));
}

/// Softmax, LogSoftmax, Hardmax of opsets 1-12: the input is seen as a matrix of
/// [prod(dims before axis), prod(dims from axis)] (axis default 1).
void rule_softmax(NodeIn &n) {
  if (n.opset >= 13) {
    if (!n.attrs.contains("axis")) n.attrs["axis"] = -1;
    return n.im.emit(n.plain(n.op));
  }
  const TensorType &t = n.type(0);
  auto r = static_cast<std::int64_t>(t.rank());
  std::int64_t axis = n.attr_int("axis", 1);
  if (axis < -r || axis >= std::max<std::int64_t>(r, 1)) n.im.fail("axis " + std::to_string(axis) + " is out of range");
  if (axis < 0) axis += r;
  if (axis == r - 1 || r == 0) {
    n.attrs["axis"] = -1;
    return n.im.emit(n.plain(n.op));
  }
  Shape dims = concrete_dims(n, t, "input '" + n.input(0) + "'");
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t k = 0; k < r; ++k) (k < axis ? outer : inner) *= dims[static_cast<std::size_t>(k)];
  std::string flat = n.temp("rows"), soft = n.temp("softmax");
  n.im.emit(n.make("Reshape", {n.input(0)}, {flat}, {{"shape", {outer, inner}}}));
  n.im.emit(n.make(n.op, {flat}, {soft}, {{"axis", 1}}));
  n.im.emit(n.make("Reshape", {soft}, {n.output(0)}, {{"shape", dims}}));
}

// --- attribute rewrites of older opsets ------------------------------------------

/// Opset 1-6 binary operators: `broadcast` = 1 with `axis` aligns B's
/// dimensions with A's from `axis` (numpy-style broadcasting came in opset 7).
void rule_legacy_broadcast(NodeIn &n) {
  std::int64_t broadcast = n.attr_int("broadcast", 0);
  bool has_axis = n.attrs.contains("axis");
  std::int64_t axis = n.attr_int("axis", 0);
  n.attrs.erase("broadcast");
  n.attrs.erase("axis");
  if (broadcast != 0 && n.inputs.size() == 2) {
    const TensorType &a = n.type(0), &b = n.type(1);
    if (b.rank() < a.rank()) {
      if (!has_axis) axis = a.rank() - b.rank();
      if (axis < 0) axis += a.rank();
      if (axis < 0 || axis + b.rank() > a.rank()) n.im.fail("axis " + std::to_string(axis) + " does not fit B into A");
      Shape bdims = concrete_dims(n, b, "input '" + n.input(1) + "'");
      std::vector<std::int64_t> shape(static_cast<std::size_t>(a.rank()), 1);
      for (int k = 0; k < b.rank(); ++k) shape[static_cast<std::size_t>(axis + k)] = bdims[static_cast<std::size_t>(k)];
      std::string aligned = n.temp("aligned");
      n.im.emit(n.make("Reshape", {n.input(1)}, {aligned}, {{"shape", shape}}));
      n.inputs[1] = aligned;
    }
  }
  n.im.emit(n.plain(n.op));
}

/// PRelu of opsets 1-6: a slope of one value per channel applies along axis
/// 1 (numpy-style broadcasting came in opset 7).
void rule_prelu(NodeIn &n) {
  if (n.opset < 7 && n.inputs.size() == 2) {
    const TensorType &x = n.type(0), &slope = n.type(1);
    if (slope.rank() == 1 && x.rank() > 2 && slope.shape[0] == x.shape[1]) {
      Shape dims = concrete_dims(n, slope, "input '" + n.input(1) + "'");
      std::vector<std::int64_t> shape(static_cast<std::size_t>(x.rank() - 1), 1);
      shape[0] = dims[0];
      std::string aligned = n.temp("slope");
      n.im.emit(n.make("Reshape", {n.input(1)}, {aligned}, {{"shape", shape}}));
      n.inputs[1] = aligned;
    }
  }
  n.im.emit(n.plain("PRelu"));
}

/// Mod: opset 28 gave fmod = 0 a meaning on floats (floored modulo), which
/// Atoll's Mod does not have.
void rule_mod(NodeIn &n) {
  if (n.attr_int("fmod", 0) == 0 && is_float(n.type(0).dtype))
    n.im.fail("fmod = 0 on floating-point inputs (opset 28's floored modulo) is not supported");
  n.im.emit(n.plain("Mod"));
}

void rule_batchnorm(NodeIn &n) {
  if (n.attr_int("spatial", 1) != 1) n.im.fail("spatial = 0 (per-element statistics) is not supported");
  if (n.attr_int("is_test", 1) != 1 && n.outputs.size() > 1) n.im.fail("training mode is not supported");
  for (const char *a : {"spatial", "is_test", "consumed_inputs"}) n.attrs.erase(a);
  n.im.emit(n.plain("BatchNormalization"));
}

void rule_gemm(NodeIn &n) {
  n.attrs.erase("broadcast");  // opset 1-6: C broadcast, as numpy-style broadcasting does it since
  n.im.emit(n.plain("Gemm"));
}

void rule_pad(NodeIn &n) {
  if (n.attrs.contains("paddings")) {  // opset 1
    n.attrs["pads"] = n.attrs["paddings"];
    n.attrs.erase("paddings");
  }
  if (n.attrs.contains("value")) {  // opset 1-10
    n.attrs["constant_value"] = n.attrs["value"];
    n.attrs.erase("value");
  }
  n.im.emit(n.plain("Pad"));
}

void rule_cast(NodeIn &n) {
  json &to = n.attrs["to"];
  if (to.is_string()) {  // opset 1-5 names the type ("FLOAT")
    std::string s = to.get<std::string>();
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    if (!parse_dtype(s)) n.im.fail("Cast to " + to.get<std::string>() + ": Atoll has no such dtype");
    to = s;
  } else if (to.is_number_integer()) {
    (void)atoll_dtype(static_cast<int>(to.get<std::int64_t>()), "the target type");
  }
  n.im.emit(n.plain("Cast"));
}

void rule_concat(NodeIn &n) {
  if (!n.attrs.contains("axis")) n.attrs["axis"] = 1;  // opset 1-3's default
  n.im.emit(n.plain("Concat"));
}

/// Upsample (opsets 7-9) and Resize of opset 10: asymmetric coordinates and
/// nearest rounding down, as Resize of opset 11 spells them.
void rule_upsample(NodeIn &n) {
  std::string scales = n.input(1);
  if (n.attrs.contains("scales")) {  // Upsample-7
    Tensor s(DType::F32, {static_cast<std::int64_t>(n.attrs["scales"].size())});
    for (std::size_t i = 0; i < n.attrs["scales"].size(); ++i) s.set(static_cast<std::int64_t>(i), n.attrs["scales"][i].get<double>());
    scales = n.temp("scales");
    n.im.define_constant(scales, std::move(s));
  }
  if (scales.empty()) n.im.fail("no scales");
  std::string mode = n.attrs.value("mode", std::string("nearest"));
  if (mode == "bilinear") mode = "linear";
  json a = {{"mode", mode}, {"coordinate_transformation_mode", "asymmetric"}};
  if (mode == "nearest") a["nearest_mode"] = "floor";
  n.im.emit(n.make("Resize", {n.input(0), "", scales}, {n.output(0)}, a));
}

void rule_resize(NodeIn &n) {
  if (n.opset < 11) return rule_upsample(n);
  // roi matters only for tf_crop_and_resize; an empty scales tensor means "use sizes".
  if (n.attrs.value("coordinate_transformation_mode", std::string()) != "tf_crop_and_resize" && n.inputs.size() > 1)
    n.inputs[1] = "";
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    const Tensor *s = n.im.constant(n.inputs[2]);
    if (s && s->numel() == 0) n.inputs[2] = "";
  }
  n.im.emit(n.plain("Resize"));
}

using Rule = std::function<void(NodeIn &)>;

const std::map<std::string, Rule> &rules() {
  static const std::map<std::string, Rule> table = {
      {"Constant", rule_constant},
      {"Shape", rule_shape},
      {"Size", rule_size},
      {"ConstantOfShape", rule_constant_of_shape},
      {"Range", rule_range},
      {"Identity", rule_identity},
      {"Dropout", rule_dropout},
      {"Sum", [](NodeIn &n) { rule_sum(n, false); }},
      {"Mean", [](NodeIn &n) { rule_sum(n, true); }},
      {"ReduceL1", [](NodeIn &n) { rule_reduce_family(n, "Abs", nullptr); }},
      {"ReduceL2", [](NodeIn &n) { rule_reduce_family(n, "Square", "Sqrt"); }},
      {"ReduceSumSquare", [](NodeIn &n) { rule_reduce_family(n, "Square", nullptr); }},
      {"ReduceLogSum", [](NodeIn &n) { rule_reduce_family(n, nullptr, "Log"); }},
      {"ReduceLogSumExp", [](NodeIn &n) { rule_reduce_family(n, "Exp", "Log"); }},
      {"Softmax", rule_softmax},
      {"LogSoftmax", rule_softmax},
      {"Hardmax", rule_softmax},
      {"BatchNormalization", rule_batchnorm},
      {"PRelu", rule_prelu},
      {"Mod", rule_mod},
      {"Gemm", rule_gemm},
      {"Pad", rule_pad},
      {"Cast", rule_cast},
      {"Concat", rule_concat},
      {"Upsample", rule_upsample},
      {"Resize", rule_resize},
      {"Attention", [](NodeIn &n) { expand_attention({n.im, n.inputs, n.outputs, n.attrs, n.opset}); }},
      {"NegativeLogLikelihoodLoss", [](NodeIn &n) { expand_nll_loss({n.im, n.inputs, n.outputs, n.attrs, n.opset}); }},
      {"SoftmaxCrossEntropyLoss",
       [](NodeIn &n) { expand_softmax_cross_entropy_loss({n.im, n.inputs, n.outputs, n.attrs, n.opset}); }},
      {"RotaryEmbedding", [](NodeIn &n) { expand_rotary_embedding({n.im, n.inputs, n.outputs, n.attrs, n.opset}); }},
  };
  return table;
}

bool legacy_broadcast_op(const std::string &op) {
  static const std::set<std::string> ops = {"Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor",
                                            "Equal", "Less", "Greater"};
  return ops.count(op) != 0;
}

}  // namespace

void translate_node(Importer &im) {
  const onnx::NodeProto &node = *im.node;
  const std::string &op = node.op_type();
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    im.fail("operator of domain '" + node.domain() + "' not supported");
  NodeIn n{im, {node.input().begin(), node.input().end()}, {node.output().begin(), node.output().end()},
           attributes_json(node), im.opset, op};
  while (!n.outputs.empty() && n.outputs.back().empty()) n.outputs.pop_back();
  for (const auto &a : node.attribute())
    if (a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS)
      im.fail("operator not supported (sub-graphs are not)");
  auto rule = rules().find(op);
  if (rule != rules().end()) return rule->second(n);
  if (legacy_broadcast_op(op) && (n.attrs.contains("broadcast") || n.attrs.contains("axis")))
    return rule_legacy_broadcast(n);
  if (op != "Compute" && find_op(op)) return im.emit(n.plain(op));
  im.fail("operator not supported");
}

}  // namespace atl::onnx_import
