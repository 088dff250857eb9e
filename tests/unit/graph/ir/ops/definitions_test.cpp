// Every operator's Compute definition parses, analyzes to the inferred output
// shapes (on several shapes, attributes and symbolic instantiations) and runs.
#include "tests/unit/graph/ir/ops/op_test_util.h"

#include <set>

using namespace optest;

namespace {

using atl::DType;

/// A definition case: the op application and the symbol values to check at.
struct Case {
  Op op;
  std::map<std::string, std::int64_t> values;
};

std::vector<Case> cases() {
  std::vector<Case> c;
  auto add = [&](Op op, std::map<std::string, std::int64_t> v = {}) { c.push_back({std::move(op), std::move(v)}); };
  auto B = DType::Bool;
  for (const char *u : {"Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal", "Neg", "Abs", "Erf", "Gelu",
                        "HardSigmoid", "HardSwish", "LeakyRelu", "Identity", "Elu", "Selu", "Softplus", "Softsign",
                        "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Round", "Celu",
                        "ThresholdedRelu", "Shrink", "Swish"}) {
    add(Op(u, {T({2, 3})}));
    add(Op(u, {T({})}));
  }
  add(Op("Gelu", {T({4})}, {{"approximate", "tanh"}}));
  add(Op("LeakyRelu", {T({4})}, {{"alpha", 0.2}}));
  add(Op("Clip", {T({2, 3})}, {{"min", -0.5}, {"max", 0.5}}));
  add(Op("Clip", {T({2, 3})}));
  add(Op("Cast", {T({2, 3})}, {{"to", "i32"}}));
  add(Op("Not", {T({4}, B)}));
  add(Op("Xor", {T({2, 1, 3}, B), T({4, 1}, B)}));
  add(Op("IsNaN", {T({2, 3})}));
  add(Op("IsInf", {T({S("N"), 3}, DType::F16)}, {{"detect_negative", 0}}), {{"N", 2}});
  add(Op("IsInf", {T({4})}, {{"detect_negative", 0}, {"detect_positive", 0}}));
  add(Op("Shrink", {T({5}, DType::I32)}, {{"bias", 1}, {"lambd", 2}}));
  add(Op("Celu", {T({4})}, {{"alpha", 0.5}}));
  add(Op("Swish", {T({4})}, {{"alpha", 2}}));
  add(Op("Elu", {T({4})}, {{"alpha", 0.3}}));
  add(Op("Selu", {T({4})}, {{"alpha", 1.5}, {"gamma", 2}}));
  add(Op("PRelu", {T({2, 3, 4}), T({3, 1})}));
  add(Op("PRelu", {T({S("N"), 4}), T({4})}), {{"N", 3}});
  add(Op("Mod", {T({2, 1, 4}, DType::I32), T({3, 1}, DType::I32)}));
  add(Op("Mod", {T({2, 3}), T({3})}, {{"fmod", 1}}));
  add(Op("CastLike", {T({2, 3}), T({1}, DType::F16)}));
  add(Op("CastLike", {T({S("N")}, DType::I32), T({})}), {{"N", 3}});
  for (const char *b : {"Add", "Sub", "Mul", "Div", "Pow", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"}) {
    add(Op(b, {T({2, 1, 4}), T({3, 1})}));
    add(Op(b, {T({S("N"), 4}), T({4})}), {{"N", 3}});
  }
  add(Op("And", {T({2, 1}, B), T({3}, B)}));
  add(Op("Or", {T({3}, B), T({3}, B)}));
  add(Op("Max", {T({3}), T({2, 1}), T({1, 1, 3})}));
  add(Op("Min", {T({3}), T({2, 3})}));
  add(Op("Min", {T({3})}));
  add(Op("Where", {T({2, 1}, B), T({3}), T({2, 3})}));
  // linear algebra
  add(Op("MatMul", {T({2, 3}), T({3, 4})}));
  add(Op("MatMul", {T({5, 1, 2, 3}), T({7, 3, 4})}));
  add(Op("MatMul", {T({3}), T({2, 3, 4})}));
  add(Op("MatMul", {T({2, 2, 3}), T({3})}));
  add(Op("MatMul", {T({3}), T({3})}));
  add(Op("MatMul", {T({S("B"), 2, 3}), T({3, 4})}), {{"B", 3}});
  add(Op("Gemm", {T({4, 3}), T({3, 5})}));
  add(Op("Gemm", {T({3, 4}), T({5, 3}), T({5})}, {{"transA", 1}, {"transB", 1}, {"alpha", 0.5}, {"beta", 2}}));
  add(Op("Gemm", {T({4, 3}), T({3, 5}), T({4, 1})}));
  add(Op("Gemm", {T({4, 3}), T({3, 5}), T({})}));
  // convolutions
  add(Op("Conv", {T({1, 3, 7, 7}), T({4, 3, 3, 3})}));
  add(Op("Conv", {T({2, 3, 7, 7}), T({4, 3, 3, 3}), T({4})}, {{"pads", {1, 0, 2, 1}}, {"strides", {2, 1}}}));
  add(Op("Conv", {T({1, 4, 9, 9}), T({6, 2, 3, 3})}, {{"group", 2}, {"dilations", {2, 2}}, {"auto_pad", "SAME_LOWER"}}));
  add(Op("Conv", {T({1, 4, 6, 6}), T({4, 1, 3, 3})}, {{"group", 4}, {"auto_pad", "SAME_UPPER"}, {"strides", {2, 2}}}));
  add(Op("Conv", {T({1, 2, 10}), T({3, 2, 4})}, {{"strides", {3}}}));
  add(Op("Conv", {T({1, 2, 4, 5, 6}), T({2, 2, 2, 2, 2})}, {{"pads", {1, 1, 1, 1, 1, 1}}}));
  add(Op("Conv", {T({S("N"), 3, 5, 5}), T({2, 3, 3, 3})}, {{"pads", {1, 1, 1, 1}}}), {{"N", 2}});
  add(Op("ConvTranspose", {T({1, 2, 3, 3}), T({2, 3, 3, 3})}));
  add(Op("ConvTranspose", {T({1, 2, 3, 3}), T({2, 3, 3, 3}), T({3})},
         {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"output_padding", {1, 1}}}));
  add(Op("ConvTranspose", {T({1, 4, 5}), T({4, 3, 2})}, {{"group", 2}, {"strides", {3}}, {"dilations", {2}}}));
  add(Op("ConvTranspose", {T({1, 2, 3, 3}), T({2, 2, 3, 3})}, {{"strides", {2, 2}}, {"auto_pad", "SAME_LOWER"}}));
  add(Op("ConvTranspose", {T({1, 2, 3, 3}), T({2, 2, 3, 3})}, {{"strides", {2, 2}}, {"output_shape", {1, 2, 8, 8}}}));
  // pools
  add(Op("MaxPool", {T({1, 2, 7, 7})}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}));
  add(Op("MaxPool", {T({1, 2, 7, 7})}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}, {"ceil_mode", 1}}));
  add(Op("MaxPool", {T({1, 1, 8})}, {{"kernel_shape", {3}}, {"dilations", {2}}, {"auto_pad", "SAME_UPPER"}}));
  add(Op("AveragePool", {T({1, 2, 7, 7})}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}));
  add(Op("AveragePool", {T({1, 2, 7, 7})}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}, {"count_include_pad", 1}}));
  add(Op("AveragePool", {T({1, 2, 7, 7})}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}, {"ceil_mode", 1}}));
  add(Op("AveragePool", {T({1, 1, 6, 6})}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}));
  add(Op("AveragePool", {T({1, 1, 5, 5, 5})}, {{"kernel_shape", {2, 2, 2}}, {"pads", {0, 1, 0, 1, 0, 1}}}));
  add(Op("LpPool", {T({1, 2, 7, 7})}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}));
  add(Op("LpPool", {T({1, 2, 7})}, {{"kernel_shape", {2}}, {"p", 1}, {"strides", {2}}, {"ceil_mode", 1}}));
  add(Op("LpPool", {T({S("N"), 2, 5, 5})}, {{"kernel_shape", {2, 2}}, {"p", 3}, {"dilations", {2, 1}}}), {{"N", 2}});
  add(Op("GlobalAveragePool", {T({2, 3, 4, 5})}));
  add(Op("GlobalMaxPool", {T({2, 3, 4})}));
  add(Op("GlobalAveragePool", {T({S("N"), 3, 4, 5})}), {{"N", 2}});
  add(Op("GlobalAveragePool", {T({1, 3, S("H"), S("W")})}), {{"H", 3}, {"W", 2}});
  add(Op("GlobalMaxPool", {T({1, 3, S("H")})}), {{"H", 3}});
  add(Op("Softmax", {T({S("N"), S("K")})}), {{"N", 2}, {"K", 3}});
  add(Op("Transpose", {T({S("N"), 3})}), {{"N", 2}});
  add(Op("Gather", {T({5, 4}), T({S("N")}, DType::I64)}), {{"N", 3}});
  // normalization
  add(Op("BatchNormalization", {T({2, 3, 4, 4}), T({3}), T({3}), T({3}), T({3})}));
  add(Op("BatchNormalization", {T({2, 3}), T({3}), T({3}), T({3}), T({3})}, {{"epsilon", 1e-3}}));
  add(Op("LayerNormalization", {T({2, 3, 4}), T({4}), T({4})}, json::object(), 3));
  add(Op("LayerNormalization", {T({2, 3, 4}), T({3, 4})}, {{"axis", 1}}));
  add(Op("LayerNormalization", {T({2, 3, 4}), T({1, 4}), T({4})}, {{"axis", 0}}, 2));
  add(Op("LayerNormalization", {T({S("S"), 4}), T({4})}), {{"S", 5}});
  add(Op("InstanceNormalization", {T({2, 3, 4, 5}), T({3}), T({3})}));
  add(Op("RMSNormalization", {T({2, 3, 4}), T({4})}));
  add(Op("RMSNormalization", {T({2, 3, 4}), T({1, 4})}, {{"axis", 1}, {"epsilon", 1e-3}}));
  add(Op("RMSNormalization", {T({S("S"), 4}), T({4})}), {{"S", 5}});
  add(Op("Softmax", {T({2, 5})}));
  add(Op("Softmax", {T({2, 5, 3})}, {{"axis", 1}}));
  add(Op("LRN", {T({1, 6, 3, 2})}, {{"size", 3}}));
  add(Op("LRN", {T({S("N"), 4, 5})}, {{"size", 2}}), {{"N", 2}});
  add(Op("LogSoftmax", {T({2, 5})}));
  add(Op("Hardmax", {T({2, 5, 3})}, {{"axis", 1}}));
  add(Op("Hardmax", {T({S("N"), 4})}), {{"N", 3}});
  add(Op("LpNormalization", {T({2, 5})}));
  add(Op("LpNormalization", {T({2, 5, 3})}, {{"axis", 0}, {"p", 1}}));
  add(Op("LpNormalization", {T({S("N"), 4})}, {{"axis", 0}}), {{"N", 3}});
  add(Op("LogSoftmax", {T({5})}, {{"axis", 0}}));
  // reductions
  for (const char *r : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"}) {
    add(Op(r, {T({2, 3, 4})}, {{"axes", {1}}}));
    add(Op(r, {T({2, 3, 4})}, {{"axes", {0, -1}}, {"keepdims", 0}}));
    add(Op(r, {T({2, 3})}, {{"keepdims", 0}}));
    add(Op(r, {T({2, 3})}, {{"noop_with_empty_axes", 1}}));
  }
  add(Op("ReduceMean", {T({S("N"), 3})}, {{"axes", {0}}}), {{"N", 4}});
  for (const char *r : {"ArgMax", "ArgMin"}) {
    add(Op(r, {T({2, 3, 4})}, {{"axis", 1}}));
    add(Op(r, {T({5}, DType::I32)}, {{"keepdims", 0}, {"select_last_index", 1}}));
    add(Op(r, {T({3, S("N")})}, {{"axis", -1}}), {{"N", 4}});
  }
  // data movement
  add(Op("Transpose", {T({2, 3, 4})}));
  add(Op("Transpose", {T({2, 3, 4})}, {{"perm", {1, 2, 0}}}));
  add(Op("Reshape", {T({2, 3, 4})}, {{"shape", {4, 6}}}));
  add(Op("Reshape", {T({2, 3, 4})}, {{"shape", {3, -1, 2}}}));
  add(Op("Reshape", {T({6})}, {{"shape", {1, 2, 1, 3}}}));
  add(Op("Reshape", {T({S("N"), 3, 4})}, {{"shape", {0, 2, 6}}}), {{"N", 2}});
  add(Op("Flatten", {T({2, 3, 4})}));
  add(Op("Flatten", {T({2, 3, 4})}, {{"axis", 0}}));
  add(Op("Flatten", {T({2, 3, 4})}, {{"axis", 3}}));
  add(Op("Squeeze", {T({1, 3, 1, 4})}));
  add(Op("Squeeze", {T({1, 3, 1, 4})}, {{"axes", {2}}}));
  add(Op("Unsqueeze", {T({3, 4})}, {{"axes", {0, 3}}}));
  add(Op("Unsqueeze", {T({})}, {{"axes", {0}}}));
  add(Op("Expand", {T({3, 1})}, {{"shape", {2, 1, 4}}}));
  add(Op("Expand", {T({S("N"), 1})}, {{"shape", {1, 5}}}), {{"N", 3}});
  add(Op("Concat", {T({2, 3}), T({2, 5}), T({2, 1})}, {{"axis", 1}}));
  add(Op("Concat", {T({S("N"), 3}), T({S("N"), 2})}, {{"axis", 1}}), {{"N", 2}});
  add(Op("Split", {T({2, 10})}, {{"axis", 1}, {"split", {3, 7}}}, 2));
  add(Op("Split", {T({10, 2})}, {{"num_outputs", 3}}, 3));
  add(Op("Slice", {T({10, 8})}, {{"starts", {1, -3}}, {"ends", {5, 1000}}}));
  add(Op("Slice", {T({10})}, {{"starts", {8}}, {"ends", {1}}, {"steps", {-3}}}));
  add(Op("Slice", {T({10})}, {{"starts", {-1}}, {"ends", {-1000}}, {"steps", {-1}}}));
  add(Op("Slice", {T({S("N"), 8})}, {{"starts", {2}}, {"ends", {8}}, {"axes", {1}}, {"steps", {2}}}), {{"N", 2}});
  for (const char *mode : {"constant", "reflect", "edge", "wrap"}) {
    add(Op("Pad", {T({3, 4})}, {{"pads", {1, 2, 2, 1}}, {"mode", mode}}));
    add(Op("Pad", {T({2, 3, 4})}, {{"pads", {2, 3}}, {"axes", {-1}}, {"mode", mode}, {"constant_value", 1.5}}));
  }
  add(Op("Pad", {T({5})}, {{"pads", {-1, 2}}}));
  add(Op("Pad", {T({5, 2})}, {{"pads", {-1, 0, -2, 0}}}));
  add(Op("Gather", {T({5, 4, 3}), T({2, 2}, DType::I32)}, {{"axis", 1}}));
  add(Op("Gather", {T({5, 4}), T({}, DType::I64)}, {{"axis", -1}}));
  add(Op("Tile", {T({2, 3})}, {{"repeats", {3, 2}}}));
  add(Op("Tile", {T({S("N"), 3})}, {{"repeats", {1, 4}}}), {{"N", 2}});
  add(Op("DepthToSpace", {T({2, 8, 2, 3})}, {{"blocksize", 2}}));
  add(Op("DepthToSpace", {T({S("N"), 9, 2, 1})}, {{"blocksize", 3}, {"mode", "CRD"}}), {{"N", 2}});
  add(Op("SpaceToDepth", {T({2, 3, 4, 6})}, {{"blocksize", 2}}));
  add(Op("SpaceToDepth", {T({1, 2, 6, 3})}, {{"blocksize", 3}, {"mode", "CRD"}}));
  add(Op("EyeLike", {T({3, 5})}, {{"k", 2}}));
  add(Op("EyeLike", {T({4, 2}, DType::I32)}, {{"dtype", "f32"}, {"k", -1}}));
  add(Op("OneHot", {T({2, 3}, DType::I64), std::nullopt, T({2})}, {{"depth", 5}}));
  add(Op("OneHot", {T({4}), std::nullopt, T({2}, DType::I32)}, {{"depth", 3}, {"axis", 0}}));
  add(Op("Trilu", {T({3, 4})}));
  add(Op("Trilu", {T({2, 5, 3}, DType::I32)}, {{"upper", 0}, {"k", -1}}));
  add(Op("Trilu", {T({S("N"), 4, 4})}, {{"k", 2}}), {{"N", 2}});
  add(Op("Trilu", {T({4, 3}), T({}, DType::I64)}));
  add(Op("GatherElements", {T({5, 4}), T({3, 4}, DType::I64)}));
  add(Op("GatherElements", {T({2, 5, 3}), T({2, 7, 2}, DType::I32)}, {{"axis", -2}}));
  add(Op("Resize", {T({1, 2, 3, 5})}, {{"scales", {1, 1, 2, 0.6}}}));
  add(Op("Resize", {T({1, 2, 3, 5})}, {{"scales", {1, 1, 1.5, 2}}, {"mode", "linear"}}));
  add(Op("Resize", {T({2, 7})}, {{"sizes", {2, 3}}, {"mode", "linear"}, {"coordinate_transformation_mode", "align_corners"}}));
  add(Op("Resize", {T({S("N"), 2, 5})}, {{"axes", {2}}, {"sizes", {9}}, {"nearest_mode", "ceil"}}), {{"N", 2}});
  add(Op("Compute", {T({4, 3}), T({3, 5})}, {{"expr", "out0(i, j) +=! in0(i, k) * in1(k, j)"}}));
  return c;
}

}  // namespace

TEST_SUITE("graph") {

TEST_CASE("definitions: every operator analyzes to its inferred shapes and runs") {
  std::set<std::string> covered;
  for (const Case &c : cases()) {
    INFO(c.op.node.op << " attrs " << c.op.node.attrs.dump());
    for (std::size_t i = 0; i < c.op.ins.size(); ++i)
      if (c.op.ins[i]) INFO("input " << i << ": " << c.op.ins[i]->str());
    std::vector<atl::Tensor> data;
    if (c.op.node.op == "Gather" || c.op.node.op == "GatherElements") {  // valid indices, some negative
      const atl::TensorType &ix = *c.op.ins[1];
      atl::Shape xs;
      for (const auto &d : c.op.ins[0]->shape) xs.push_back(d.is_symbolic() ? c.values.at(d.symbol) : d.value);
      atl::Tensor x(atl::DType::F32, xs), idx(ix.dtype, {});
      for (std::int64_t k = 0; k < x.numel(); ++k) x.set(k, static_cast<double>(k));
      atl::Shape is;
      for (const auto &d : ix.shape) is.push_back(d.is_symbolic() ? c.values.at(d.symbol) : d.value);
      idx = atl::Tensor(ix.dtype, is);
      std::int64_t dim = x.numel();  // Gather's cases index within every axis
      if (c.op.node.op == "GatherElements") {
        std::int64_t axis = c.op.node.attrs.value("axis", 0);
        dim = xs[static_cast<std::size_t>(axis < 0 ? axis + static_cast<std::int64_t>(xs.size()) : axis)];
      }
      for (std::int64_t k = 0; k < idx.numel(); ++k) idx.set(k, k % 2 ? -1 - k % dim : k % dim);
      data = {x, idx};
    }
    CHECK_NOTHROW(c.op.check_definition(c.values, data));
    covered.insert(c.op.node.op);
  }
  for (const atl::OpInfo *op : atl::all_ops()) {
    INFO("operator without a definition case: " << op->name);
    CHECK(covered.count(op->name) == 1);
  }
}

TEST_CASE("definitions: graph parameters named like an operator's indices do not capture them") {
  Op pool("GlobalAveragePool", {T({1, 2, S("h"), 3})});
  pool.param("h", 1, 8);
  CHECK(pool.define().text == "Y(n, c, 0, 0) +=! X(n, c, h_, w)\nY(n, c, 0, 0) = Y(n, c, 0, 0) / (3 * h)");
  CHECK_NOTHROW(pool.check_definition({{"h", 4}}));
  Op conv("Conv", {T({S("n"), 2, 5, 5}), T({3, 2, 3, 3})}, {{"pads", {1, 1, 1, 1}}});
  conv.param("n", 1, 4).param("kh", 1, 4).param("i0", 1, 4);
  CHECK(conv.define().text.find("Y(n_, m, h, w) +=! guard(X(n_, c, h + kh_ - 1") == 0);
  CHECK_NOTHROW(conv.check_definition({{"n", 2}, {"kh", 1}, {"i0", 1}}));
  Op soft("Softmax", {T({S("i0"), 3})});
  soft.param("i0", 1, 4);
  CHECK_NOTHROW(soft.check_definition({{"i0", 2}}));
}

}  // TEST_SUITE
