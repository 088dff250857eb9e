// The operator sweep's cases (see op_cases.h).
#include "tests/unit/src/ops/op_cases.h"

#include <cmath>
#include <sstream>

namespace atl::test {

using nlohmann::json;

namespace {

In f(Shape s) { return In{std::move(s)}; }
In typed(Shape s, DType t, std::string init = {}) { return In{std::move(s), t, std::move(init)}; }
In positive(Shape s) { return In{std::move(s), DType::F32, "uniform(0.1,2)"}; }
In omitted() { return In{{}, DType::F32, "omit"}; }
In ints(std::vector<double> v, DType t = DType::I64) {
  return In{{static_cast<std::int64_t>(v.size())}, t, "", std::move(v)};
}

std::vector<Case> elementwise_cases() {
  std::vector<Case> cases;
  std::vector<std::vector<In>> binary_shapes = {
      {f({7}), f({7})}, {f({3, 1}), f({1, 5})}, {f({2, 3, 5}), f({5})}, {f({1, 4, 1, 3}), f({2, 1, 6, 1})}, {f({}), f({4, 3})}};
  for (const char *op : {"Add", "Sub", "Mul", "Max", "Min"})
    for (const auto &s : binary_shapes) cases.push_back({op, s});
  for (const auto &s : std::vector<std::vector<In>>{{f({7}), positive({7})}, {f({3, 1}), positive({1, 5})}, {f({2, 1, 3}), positive({3})}})
    cases.push_back({"Div", s});
  cases.push_back({"Div", {typed({5}, DType::I32), ints({3, -2, 4, 7, -5}, DType::I32)}});
  for (const auto &s : std::vector<std::vector<In>>{{positive({6}), f({6})}, {positive({2, 3}), f({3})}, {positive({1, 4}), f({3, 1})}})
    cases.push_back({"Pow", s});
  cases.push_back({"Max", {f({3, 4}), f({4}), f({1, 1})}});
  cases.push_back({"Min", {f({2, 1}), f({1, 3}), f({2, 3}), f({3})}});
  cases.push_back({"Max", {f({5})}});
  std::vector<Shape> unary_shapes = {{9}, {2, 1, 7}, {1}, {3, 5, 2, 3}};
  for (const char *op : {"Relu", "Sigmoid", "Tanh", "Exp", "Neg", "Abs", "Erf", "Identity", "HardSwish"})
    for (const Shape &s : unary_shapes) cases.push_back({op, {f(s)}});
  for (const char *op : {"Elu", "Selu", "Softplus", "Softsign"})
    for (const Shape &s : unary_shapes) cases.push_back({op, {In{s, DType::F32, "uniform(-5,5)"}}});
  cases.push_back({"Elu", {f({4, 3})}, {{"alpha", 0.3}}});
  cases.push_back({"Selu", {f({4, 3})}, {{"alpha", 1.2}, {"gamma", 0.9}}});
  cases.push_back({"Softplus", {In{{3, 7}, DType::F32, "uniform(-100,100)"}}});
  cases.push_back({"PRelu", {f({2, 3, 5}), f({3, 1})}});
  cases.push_back({"PRelu", {f({7}), f({7})}});
  cases.push_back({"PRelu", {f({1, 4, 3, 3}), f({})}});
  cases.push_back({"PRelu", {typed({3, 4}, DType::I32, "uniform(-9,9)"), ints({2, -1, 3, 0}, DType::I32)}});
  cases.push_back({"Mod", {typed({2, 5}, DType::I32, "uniform(-50,50)"), ints({3, -4, 5, -7, 2}, DType::I32)}});
  cases.push_back({"Mod", {typed({3, 1}, DType::I64, "uniform(-50,50)"), ints({6, -6, 1, 5}, DType::I64)}, {{"fmod", 1}}});
  cases.push_back({"Mod", {In{{3, 4}, DType::F32, "uniform(-10,10)"}, positive({4})}, {{"fmod", 1}}});
  cases.push_back({"Mod", {In{{2, 1, 3}, DType::F32, "uniform(-10,10)"}, In{{5, 1}, DType::F32, "uniform(-3,-0.5)"}}, {{"fmod", 1}}});
  cases.push_back({"CastLike", {In{{9}, DType::F32, "uniform(-9,9)"}, typed({1}, DType::I32)}});
  cases.push_back({"CastLike", {f({2, 3}), typed({4, 4}, DType::F16)}});
  cases.push_back({"CastLike", {typed({5, 1}, DType::I32, "uniform(-9,9)"), f({})}});
  for (const char *op : {"Log", "Sqrt", "Reciprocal"})
    for (const Shape &s : unary_shapes) cases.push_back({op, {positive(s)}});
  for (const Shape &s : unary_shapes) {
    cases.push_back({"LeakyRelu", {f(s)}});
    cases.push_back({"LeakyRelu", {f(s)}, {{"alpha", 0.3}}});
    cases.push_back({"Gelu", {f(s)}});
    cases.push_back({"Gelu", {f(s)}, {{"approximate", "tanh"}}});
    cases.push_back({"HardSigmoid", {f(s)}, {{"alpha", 0.4}, {"beta", 0.3}}});
    cases.push_back({"Clip", {f(s)}, {{"min", -0.5}, {"max", 0.25}}});
    cases.push_back({"Clip", {f(s)}, {{"min", 0.0}}});
  }
  cases.push_back({"Clip", {f({4, 3}), In{{}, DType::F32, "", std::vector<double>{-0.2}}, In{{}, DType::F32, "", std::vector<double>{0.6}}}});
  cases.push_back({"Clip", {f({4, 3}), omitted(), In{{}, DType::F32, "", std::vector<double>{0.1}}}});
  cases.push_back({"Clip", {f({7})}});
  for (const char *op : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"}) {
    cases.push_back({op, {typed({6}, DType::I32), typed({6}, DType::I32)}});
    cases.push_back({op, {f({3, 1}), f({1, 4})}});
    cases.push_back({op, {typed({2, 5}, DType::I64), typed({5}, DType::I64)}});
  }
  for (const char *op : {"And", "Or"}) {
    cases.push_back({op, {typed({7}, DType::Bool), typed({7}, DType::Bool)}});
    cases.push_back({op, {typed({3, 1}, DType::Bool), typed({4}, DType::Bool)}});
    cases.push_back({op, {typed({}, DType::Bool), typed({2, 2}, DType::Bool)}});
  }
  for (const Shape &s : unary_shapes) cases.push_back({"Not", {typed(s, DType::Bool)}});
  cases.push_back({"Where", {typed({5}, DType::Bool), f({5}), f({5})}});
  cases.push_back({"Where", {typed({3, 1}, DType::Bool), f({1, 4}), f({})}});
  cases.push_back({"Where", {typed({2, 1, 3}, DType::Bool), f({4, 1}), f({3})}});
  cases.push_back({"Cast", {f({9})}, {{"to", "i32"}}});
  cases.push_back({"Cast", {f({2, 3})}, {{"to", 10}}});
  cases.push_back({"Cast", {typed({4, 1}, DType::I32)}, {{"to", "f32"}}});
  cases.push_back({"Cast", {f({5})}, {{"to", "bool"}}});
  cases.push_back({"Cast", {f({3, 3})}, {{"to", "bf16"}}});
  cases.push_back({"Relu", {typed({3, 5}, DType::F16)}});
  cases.push_back({"Softmax", {typed({3, 200}, DType::F16)}});
  cases.push_back({"LayerNormalization", {typed({2, 300}, DType::BF16), typed({300}, DType::BF16)}});
  cases.push_back({"Add", {typed({3, 5}, DType::F16), typed({5}, DType::F16)}});
  cases.push_back({"Add", {typed({4}, DType::I8, "uniform(-50,50)"), typed({4}, DType::I8, "uniform(-50,50)")}});
  return cases;
}

std::vector<Case> linalg_cases() {
  std::vector<Case> cases;
  std::vector<std::vector<In>> mm = {{f({3, 5}), f({5, 7})},       {f({1, 1}), f({1, 9})},
                                     {f({2, 3, 4}), f({4, 5})},    {f({7}), f({7, 3})},
                                     {f({3, 7}), f({7})},          {f({2, 1, 3, 4}), f({5, 4, 2})},
                                     {f({6}), f({6})}};
  for (const auto &s : mm) cases.push_back({"MatMul", s});
  cases.push_back({"Gemm", {f({3, 5}), f({5, 4})}});
  cases.push_back({"Gemm", {f({5, 3}), f({4, 5}), f({4})}, {{"transA", 1}, {"transB", 1}, {"alpha", 0.5}, {"beta", 2.0}}});
  cases.push_back({"Gemm", {f({1, 7}), f({7, 1}), f({1, 1})}});
  cases.push_back({"Gemm", {f({4, 3}), f({3, 6}), f({4, 1})}, {{"beta", -1.0}}});
  cases.push_back({"Gemm", {f({2, 3}), f({3, 2}), f({})}, {{"alpha", 0.0}}});
  return cases;
}

std::vector<Case> conv_pool_cases() {
  std::vector<Case> cases;
  cases.push_back({"Conv", {f({1, 3, 7, 7}), f({4, 3, 3, 3})}});
  cases.push_back({"Conv", {f({2, 4, 9, 8}), f({6, 2, 3, 2}), f({6})},
                   {{"pads", {1, 0, 2, 1}}, {"strides", {2, 3}}, {"dilations", {1, 2}}, {"group", 2}}});
  cases.push_back({"Conv", {f({1, 6, 5, 5}), f({6, 1, 3, 3})}, {{"group", 6}, {"pads", {1, 1, 1, 1}}}});
  cases.push_back({"Conv", {f({1, 2, 11}), f({3, 2, 4})}, {{"auto_pad", "SAME_UPPER"}, {"strides", {2}}}});
  cases.push_back({"Conv", {f({1, 2, 5, 6}), f({2, 2, 2, 3})}, {{"auto_pad", "SAME_LOWER"}}});
  cases.push_back({"Conv", {f({1, 1, 4, 3, 5}), f({2, 1, 2, 2, 3})}, {{"pads", {0, 1, 1, 1, 0, 1}}}});
  cases.push_back({"Conv", {f({1, 3, 1, 1}), f({5, 3, 1, 1}), f({5})}});
  cases.push_back({"ConvTranspose", {f({1, 2, 3, 3}), f({2, 3, 3, 3})}});
  cases.push_back({"ConvTranspose", {f({1, 4, 4, 5}), f({4, 1, 3, 2}), f({2})},
                   {{"strides", {2, 3}}, {"pads", {1, 0, 1, 1}}, {"group", 2}, {"output_padding", {1, 0}}}});
  cases.push_back({"ConvTranspose", {f({2, 1, 5}), f({1, 2, 3})}, {{"strides", {2}}, {"dilations", {2}}}});
  cases.push_back({"ConvTranspose", {f({1, 2, 3, 3}), f({2, 2, 3, 3})}, {{"strides", {2, 2}}, {"output_shape", {7, 6}}}});
  // Outputs longer than the full result: negative pads split by floor division (ONNX's reference).
  cases.push_back({"ConvTranspose", {f({1, 1, 4}), f({1, 1, 2})}, {{"strides", {3}}, {"auto_pad", "SAME_UPPER"}}});
  cases.push_back({"ConvTranspose", {f({1, 1, 4}), f({1, 2, 2})}, {{"strides", {3}}, {"auto_pad", "SAME_LOWER"}}});
  cases.push_back({"ConvTranspose", {f({1, 2, 3}), f({2, 1, 2})}, {{"strides", {2}}, {"output_shape", {9}}}});
  cases.push_back({"MaxPool", {f({1, 2, 7, 7})}, {{"kernel_shape", {3, 3}}}});
  cases.push_back({"MaxPool", {f({2, 3, 8, 9})}, {{"kernel_shape", {3, 2}}, {"strides", {2, 2}}, {"pads", {1, 0, 1, 1}}, {"ceil_mode", 1}}});
  cases.push_back({"MaxPool", {f({1, 1, 10})}, {{"kernel_shape", {3}}, {"dilations", {2}}, {"auto_pad", "SAME_UPPER"}}});
  cases.push_back({"AveragePool", {f({1, 2, 7, 7})}, {{"kernel_shape", {3, 3}}}});
  cases.push_back({"AveragePool", {f({1, 3, 8, 9})}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}});
  cases.push_back({"AveragePool", {f({1, 3, 8, 9})},
                   {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"count_include_pad", 1}}});
  cases.push_back({"AveragePool", {f({2, 2, 7, 6})}, {{"kernel_shape", {2, 3}}, {"strides", {2, 2}}, {"ceil_mode", 1}}});
  cases.push_back({"AveragePool", {f({1, 1, 9})}, {{"kernel_shape", {4}}, {"auto_pad", "SAME_LOWER"}}});
  for (const char *op : {"GlobalAveragePool", "GlobalMaxPool"}) {
    cases.push_back({op, {f({1, 3, 5, 7})}});
    cases.push_back({op, {f({2, 1, 1, 1})}});
    cases.push_back({op, {f({1, 2, 9})}});
  }
  return cases;
}

std::vector<Case> norm_reduce_cases() {
  std::vector<Case> cases;
  cases.push_back({"BatchNormalization", {f({1, 3, 4, 5}), f({3}), f({3}), f({3}), positive({3})}});
  cases.push_back({"BatchNormalization", {f({2, 5}), f({5}), f({5}), f({5}), positive({5})}, {{"epsilon", 0.01}}});
  cases.push_back({"BatchNormalization", {f({1, 1, 7}), f({1}), f({1}), f({1}), positive({1})}});
  cases.push_back({"LayerNormalization", {f({3, 8}), f({8}), f({8})}});
  cases.push_back({"LayerNormalization", {f({2, 3, 5}), f({3, 5})}, {{"axis", 1}, {"epsilon", 1e-3}}});
  cases.push_back({"LayerNormalization", {f({4, 1}), f({1}), f({1})}});
  cases.push_back({"LayerNormalization", {f({2, 7}), f({7}), f({7})}, json::object(), 3});
  cases.push_back({"InstanceNormalization", {f({2, 3, 4, 5}), f({3}), f({3})}});
  cases.push_back({"InstanceNormalization", {f({1, 2, 7}), f({2}), f({2})}, {{"epsilon", 0.1}}});
  cases.push_back({"InstanceNormalization", {f({1, 1, 1, 3}), f({1}), f({1})}});
  cases.push_back({"RMSNormalization", {f({3, 8}), f({8})}});
  cases.push_back({"RMSNormalization", {f({2, 3, 5}), f({1, 5})}, {{"axis", 1}, {"epsilon", 1e-3}}});
  cases.push_back({"RMSNormalization", {f({4, 1}), f({1})}});
  cases.push_back({"RMSNormalization", {typed({2, 300}, DType::BF16), typed({300}, DType::BF16)}});
  // LRN: even and odd windows, a window wider than the channels, rank 3 and 4.
  cases.push_back({"LRN", {f({2, 7, 3, 5})}, {{"size", 3}}});
  cases.push_back({"LRN", {f({1, 5, 6})}, {{"size", 4}, {"alpha", 0.02}, {"beta", 0.5}, {"bias", 2.0}}});
  cases.push_back({"LRN", {f({1, 3, 2, 2})}, {{"size", 5}, {"alpha", 0.5}}});
  for (const char *op : {"Softmax", "LogSoftmax"}) {
    cases.push_back({op, {f({3, 7})}});
    cases.push_back({op, {f({2, 3, 5})}, {{"axis", 1}}});
    cases.push_back({op, {f({4, 1})}});
    cases.push_back({op, {f({2, 2, 3})}, {{"axis", 0}}});
  }
  for (const char *op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"}) {
    cases.push_back({op, {f({3, 5})}});
    cases.push_back({op, {f({2, 3, 4})}, {{"axes", {0, 2}}, {"keepdims", 0}}});
    cases.push_back({op, {f({2, 1, 5})}, {{"axes", {-1}}}});
    cases.push_back({op, {f({4, 3}), ints({1})}, {{"keepdims", 0}}});
    cases.push_back({op, {f({3, 2})}, {{"axes", json::array()}, {"noop_with_empty_axes", 1}}});
  }
  return cases;
}

std::vector<Case> movement_cases() {
  std::vector<Case> cases;
  cases.push_back({"Transpose", {f({2, 3, 4})}});
  cases.push_back({"Transpose", {f({2, 3, 4})}, {{"perm", {1, 2, 0}}}});
  cases.push_back({"Transpose", {f({1, 5, 1, 3})}, {{"perm", {3, 1, 0, 2}}}});
  cases.push_back({"Reshape", {f({2, 3, 4})}, {{"shape", {4, -1}}}});
  cases.push_back({"Reshape", {f({2, 3, 4}), ints({0, 12})}});
  cases.push_back({"Reshape", {f({6, 1, 5})}, {{"shape", {5, 2, 3}}}});
  cases.push_back({"Reshape", {f({7})}, {{"shape", {1, 7, 1}}}});
  cases.push_back({"Flatten", {f({2, 3, 4})}});
  cases.push_back({"Flatten", {f({2, 3, 4})}, {{"axis", 0}}});
  cases.push_back({"Flatten", {f({2, 3, 4, 5})}, {{"axis", -1}}});
  cases.push_back({"Squeeze", {f({1, 3, 1, 5})}});
  cases.push_back({"Squeeze", {f({1, 3, 1, 5})}, {{"axes", {-2}}}});
  cases.push_back({"Squeeze", {f({4, 1}), ints({1})}});
  cases.push_back({"Unsqueeze", {f({3, 5})}, {{"axes", {0, 3}}}});
  cases.push_back({"Unsqueeze", {f({7}), ints({-1})}});
  cases.push_back({"Unsqueeze", {f({})}, {{"axes", {0}}}});
  cases.push_back({"Concat", {f({2, 3}), f({2, 5})}, {{"axis", 1}}});
  cases.push_back({"Concat", {f({1, 3}), f({4, 3}), f({2, 3})}, {{"axis", 0}}});
  cases.push_back({"Concat", {f({2, 1, 2}), f({2, 3, 2})}, {{"axis", -2}}});
  cases.push_back({"Split", {f({7, 2})}, {{"axis", 0}, {"split", {3, 4}}}, 2});
  cases.push_back({"Split", {f({2, 7})}, {{"axis", 1}, {"num_outputs", 3}}, 3});
  cases.push_back({"Split", {f({6}), ints({1, 2, 3})}, json::object(), 3});
  cases.push_back({"Slice", {f({10})}, {{"starts", {2}}, {"ends", {9}}, {"steps", {3}}}});
  cases.push_back({"Slice", {f({5, 7})}, {{"starts", {-1, 0}}, {"ends", {-6, 100}}, {"axes", {0, 1}}, {"steps", {-2, 1}}}});
  cases.push_back({"Slice", {f({4, 6, 3}), ints({1}), ints({-1}), ints({1})}});
  cases.push_back({"Pad", {f({3, 4})}, {{"pads", {1, 2, 0, 1}}}});
  cases.push_back({"Pad", {f({3, 4})}, {{"pads", {1, 2, 2, 3}}, {"mode", "reflect"}}});
  cases.push_back({"Pad", {f({2, 3, 4})}, {{"pads", {0, 1, 2, 0, 2, 1}}, {"mode", "edge"}}});
  cases.push_back({"Pad", {f({5})}, {{"pads", {3, 4}}, {"mode", "wrap"}}});
  cases.push_back({"Pad", {f({4, 5})}, {{"pads", {-1, 1, 0, -2}}, {"constant_value", 2.5}}});
  cases.push_back({"Pad", {f({1, 2, 3}), ints({1, 1}), In{{}, DType::F32, "", std::vector<double>{-3}}, ints({2})}});
  cases.push_back({"Expand", {f({3, 1})}, {{"shape", {2, 3, 4}}}});
  cases.push_back({"Expand", {f({1})}, {{"shape", {5}}}});
  cases.push_back({"Expand", {f({2, 1, 3}), ints({3, 1, 4, 1})}});
  cases.push_back({"Gather", {f({5, 3}), ints({0, 4, -1, 2})}});
  cases.push_back({"Gather", {f({2, 6, 3}), In{{2, 2}, DType::I64, "", std::vector<double>{5, 0, -6, 3}}}, {{"axis", 1}}});
  cases.push_back({"Gather", {f({7}), In{{}, DType::I32, "", std::vector<double>{3}}}});
  cases.push_back({"Tile", {f({2, 3})}, {{"repeats", {3, 2}}}});
  cases.push_back({"Tile", {f({1, 3, 5}), ints({2, 1, 3})}});
  cases.push_back({"Tile", {f({7})}, {{"repeats", {1}}}});
  cases.push_back({"GatherElements", {f({5, 3}), In{{2, 3}, DType::I64, "", std::vector<double>{0, 4, -1, -5, 2, 3}}}});
  cases.push_back({"GatherElements", {f({2, 6, 3}), In{{2, 7, 1}, DType::I32, "", std::vector<double>{5, 0, -6, 3, 1, 2, -1, 4, 4, 0, -2, 5, 1, 3}}},
                   {{"axis", 1}}});
  cases.push_back({"GatherElements", {f({4, 5}), typed({4, 2}, DType::I64, "uniform(-5,4)")}, {{"axis", -1}}});
  for (const char *mode : {"nearest", "linear"}) {
    cases.push_back({"Resize", {f({1, 3, 5, 7})}, {{"mode", mode}, {"scales", {1, 1, 2, 2}}}});
    cases.push_back({"Resize", {f({1, 2, 9, 11})}, {{"mode", mode}, {"scales", {1, 1, 0.5, 0.6}}}});
    cases.push_back({"Resize", {f({2, 3, 7, 5})}, {{"mode", mode}, {"scales", {1, 1, 1.5, 0.6}}, {"coordinate_transformation_mode", "align_corners"}}});
    cases.push_back({"Resize", {f({1, 3, 7, 9})}, {{"mode", mode}, {"sizes", {1, 3, 11, 4}}, {"coordinate_transformation_mode", "asymmetric"}}});
    cases.push_back({"Resize", {f({2, 5, 13})}, {{"mode", mode}, {"scales", {1, 1, 2.5}}, {"coordinate_transformation_mode", "pytorch_half_pixel"}}});
    cases.push_back({"Resize", {f({2, 3, 5, 7})}, {{"mode", mode}, {"axes", {2, 3}}, {"scales", {1.5, 0.6}}, {"coordinate_transformation_mode", "half_pixel_symmetric"}}});
  }
  cases.push_back({"Resize", {f({1, 2, 6, 10})}, {{"nearest_mode", "round_prefer_ceil"}, {"scales", {1, 1, 1.5, 0.5}}}});
  cases.push_back({"Resize", {f({1, 2, 6, 10})}, {{"nearest_mode", "ceil"}, {"scales", {1, 1, 1.5, 0.5}}}});
  cases.push_back({"Resize", {f({1, 2, 6, 8}), omitted(), omitted(), ints({9, 9})},
                   {{"mode", "linear"}, {"axes", {2, 3}}, {"keep_aspect_ratio_policy", "not_larger"}}});
  cases.push_back({"Resize", {f({1, 3, 4, 4}), omitted(), In{{4}, DType::F32, "", std::vector<double>{1, 1, 0.75, 1.25}}},
                   {{"mode", "linear"}}});
  return cases;
}

/// f64 (computed in double, never rounded to f32) and u8 (wrapping
/// conversions) through the operators that ONNX models give them to.
std::vector<Case> wide_and_unsigned_cases() {
  const DType D = DType::F64, U = DType::U8;
  std::vector<Case> cases;
  cases.push_back({"Add", {typed({3, 5}, D), typed({5}, D)}});
  cases.push_back({"Mul", {typed({2, 1, 3}, D), typed({4, 1}, D)}});
  cases.push_back({"Div", {typed({7}, D), In{{7}, D, "uniform(0.1,2)"}}});
  for (const char *op : {"Relu", "Sigmoid", "Tanh", "Exp", "Neg", "Abs", "Erf"}) cases.push_back({op, {typed({2, 9}, D)}});
  cases.push_back({"Sqrt", {In{{4, 3}, D, "uniform(0.1,4)"}}});
  cases.push_back({"MatMul", {typed({3, 5}, D), typed({5, 7}, D)}});
  cases.push_back({"MatMul", {typed({2, 4, 9}, D), typed({9, 3}, D)}});
  cases.push_back({"Gemm", {typed({5, 4}, D), typed({4, 3}, D), typed({3}, D)}});
  cases.push_back({"ReduceSum", {typed({3, 4, 5}, D)}, {{"axes", {1}}, {"keepdims", 0}}});
  cases.push_back({"ReduceMax", {typed({6, 7}, D)}, {{"axes", {-1}}}});
  cases.push_back({"Softmax", {typed({3, 11}, D)}, {{"axis", -1}}});
  cases.push_back({"Conv", {typed({1, 2, 6, 5}, D), typed({3, 2, 3, 3}, D)}, {{"pads", {1, 1, 1, 1}}}});
  cases.push_back({"Transpose", {typed({2, 3, 4}, D)}, {{"perm", {2, 0, 1}}}});
  cases.push_back({"Cast", {In{{9}, DType::F32, "uniform(-300,300)"}}, {{"to", "u8"}}});
  cases.push_back({"Cast", {typed({3, 4}, U, "uniform(0,255)")}, {{"to", "f32"}}});
  cases.push_back({"Cast", {typed({5}, D)}, {{"to", "f32"}}});
  cases.push_back({"Cast", {typed({2, 3}, DType::F32)}, {{"to", "f64"}}});
  cases.push_back({"Add", {typed({4, 3}, U, "uniform(0,200)"), typed({3}, U, "uniform(0,200)")}});  // wraps past 255
  cases.push_back({"Sub", {typed({6}, U, "uniform(0,100)"), typed({6}, U, "uniform(0,200)")}});     // wraps below 0
  cases.push_back({"Max", {typed({2, 5}, U, "uniform(0,255)"), typed({5}, U, "uniform(0,255)")}});
  cases.push_back({"ReduceMax", {typed({3, 8}, U, "uniform(0,255)")}, {{"axes", {1}}}});
  cases.push_back({"Transpose", {typed({3, 5}, U, "uniform(0,255)")}, {{"perm", {1, 0}}}});
  cases.push_back({"Where", {typed({4}, DType::Bool), typed({4}, U, "uniform(0,255)"), typed({1}, U, "uniform(0,255)")}});
  // bool reductions: any (ReduceMax) and all (ReduceMin)
  cases.push_back({"ReduceMax", {typed({3, 5}, DType::Bool)}, {{"axes", {1}}}});
  cases.push_back({"ReduceMin", {typed({4, 2, 3}, DType::Bool)}, {{"axes", {0, 2}}, {"keepdims", 0}}});
  return cases;
}

/// The operators added after the sweep's first set (ArgMax to OneHot). They
/// come last: the random schedule sweep gives each variant the seed of its
/// position in the pool (random_schedules_test.cpp), so cases placed after
/// the earlier ones leave those cases' seeds as they were.
std::vector<Case> later_cases() {
  std::vector<Case> cases;
  // trigonometric and hyperbolic functions over their domains
  cases.push_back({"Sin", {In{{2, 1, 7}, DType::F32, "uniform(-6,6)"}}});
  cases.push_back({"Sin", {In{{3, 5, 2, 3}, DType::F32, "uniform(-6,6)"}}});
  cases.push_back({"Cos", {In{{2, 1, 7}, DType::F32, "uniform(-6,6)"}}});
  cases.push_back({"Cos", {In{{3, 5, 2, 3}, DType::F32, "uniform(-6,6)"}}});
  cases.push_back({"Tan", {In{{2, 1, 7}, DType::F32, "uniform(-1.5,1.5)"}}});
  cases.push_back({"Tan", {In{{3, 5, 2, 3}, DType::F32, "uniform(-1.5,1.5)"}}});
  cases.push_back({"Asin", {In{{2, 1, 7}, DType::F32, "uniform(-1,1)"}}});
  cases.push_back({"Asin", {In{{3, 5, 2, 3}, DType::F32, "uniform(-1,1)"}}});
  cases.push_back({"Acos", {In{{2, 1, 7}, DType::F32, "uniform(-1,1)"}}});
  cases.push_back({"Acos", {In{{3, 5, 2, 3}, DType::F32, "uniform(-1,1)"}}});
  cases.push_back({"Atan", {In{{2, 1, 7}, DType::F32, "uniform(-8,8)"}}});
  cases.push_back({"Atan", {In{{3, 5, 2, 3}, DType::F32, "uniform(-8,8)"}}});
  cases.push_back({"Sinh", {In{{2, 1, 7}, DType::F32, "uniform(-5,5)"}}});
  cases.push_back({"Sinh", {In{{3, 5, 2, 3}, DType::F32, "uniform(-5,5)"}}});
  cases.push_back({"Cosh", {In{{2, 1, 7}, DType::F32, "uniform(-5,5)"}}});
  cases.push_back({"Cosh", {In{{3, 5, 2, 3}, DType::F32, "uniform(-5,5)"}}});
  cases.push_back({"Asinh", {In{{2, 1, 7}, DType::F32, "uniform(-9,9)"}}});
  cases.push_back({"Asinh", {In{{3, 5, 2, 3}, DType::F32, "uniform(-9,9)"}}});
  cases.push_back({"Acosh", {In{{2, 1, 7}, DType::F32, "uniform(1,9)"}}});
  cases.push_back({"Acosh", {In{{3, 5, 2, 3}, DType::F32, "uniform(1,9)"}}});
  cases.push_back({"Atanh", {In{{2, 1, 7}, DType::F32, "uniform(-0.95,0.95)"}}});
  cases.push_back({"Atanh", {In{{3, 5, 2, 3}, DType::F32, "uniform(-0.95,0.95)"}}});
  cases.push_back({"Cos", {In{{9}, DType::F32, "uniform(-6,6)"}}});
  cases.push_back({"Tan", {In{{9}, DType::F32, "uniform(-1.5,1.5)"}}});
  cases.push_back({"Asin", {In{{9}, DType::F32, "uniform(-1,1)"}}});
  cases.push_back({"Acos", {In{{9}, DType::F32, "uniform(-1,1)"}}});
  cases.push_back({"Atan", {In{{9}, DType::F32, "uniform(-8,8)"}}});
  cases.push_back({"Sinh", {In{{9}, DType::F32, "uniform(-5,5)"}}});
  cases.push_back({"Cosh", {In{{9}, DType::F32, "uniform(-5,5)"}}});
  cases.push_back({"Asinh", {In{{9}, DType::F32, "uniform(-9,9)"}}});
  cases.push_back({"Acosh", {In{{9}, DType::F32, "uniform(1,9)"}}});
  cases.push_back({"Atanh", {In{{9}, DType::F32, "uniform(-0.95,0.95)"}}});
  cases.push_back({"Sin", {typed({4, 3}, DType::F16, "uniform(-3,3)")}});
  cases.push_back({"Round", {typed({4, 5}, DType::F16, "range(-5,0.5)")}});
  cases.push_back({"IsNaN", {typed({3, 4}, DType::BF16)}});
  cases.push_back({"Xor", {typed({}, DType::Bool), typed({2, 5}, DType::Bool)}});
  cases.push_back({"Celu", {typed({3, 4}, DType::F16, "uniform(-3,3)")}, {{"alpha", 0.5}}});
  cases.push_back({"ThresholdedRelu", {typed({3, 4}, DType::F16, "uniform(-3,3)")}, {{"alpha", -0.5}}});
  cases.push_back({"Swish", {typed({3, 4}, DType::BF16, "uniform(-3,3)")}});
  // Round: halves (ties to even, both signs) among other values
  cases.push_back({"Round", {In{{3, 5, 2, 3}, DType::F32, "range(-11.5,0.25)"}}});
  cases.push_back({"Round", {In{{2, 1, 7}, DType::F32, "uniform(-20,20)"}}});
  cases.push_back({"IsNaN", {In{{5}, DType::F32, "", std::vector<double>{NAN, 1, INFINITY, -0.0, NAN}}}});
  cases.push_back({"IsNaN", {f({2, 1, 7})}});
  for (int neg : {0, 1})
    for (int pos : {0, 1})
      cases.push_back({"IsInf", {In{{6}, DType::F32, "", std::vector<double>{INFINITY, -INFINITY, NAN, 1, -1e30, 0}}},
                       {{"detect_negative", neg}, {"detect_positive", pos}}});
  cases.push_back({"IsInf", {f({3, 5, 2, 3})}});
  cases.push_back({"Xor", {typed({7}, DType::Bool), typed({7}, DType::Bool)}});
  cases.push_back({"Xor", {typed({3, 1}, DType::Bool), typed({1, 4}, DType::Bool)}});
  cases.push_back({"Celu", {In{{3, 5, 2, 3}, DType::F32, "uniform(-5,5)"}}});
  cases.push_back({"Celu", {In{{2, 1, 7}, DType::F32, "uniform(-5,5)"}}, {{"alpha", 2.5}}});
  cases.push_back({"ThresholdedRelu", {In{{3, 5, 2, 3}, DType::F32, "uniform(-3,3)"}}});
  cases.push_back({"ThresholdedRelu", {f({9})}, {{"alpha", 0.2}}});
  cases.push_back({"Shrink", {In{{3, 5, 2, 3}, DType::F32, "uniform(-2,2)"}}});
  cases.push_back({"Shrink", {f({2, 1, 7})}, {{"bias", 0.25}, {"lambd", 0.3}}});
  cases.push_back({"Shrink", {typed({9}, DType::I32, "uniform(-9,9)")}, {{"bias", 1}, {"lambd", 2}}});
  cases.push_back({"Swish", {In{{3, 5, 2, 3}, DType::F32, "uniform(-6,6)"}}});
  cases.push_back({"Swish", {f({2, 1, 7})}, {{"alpha", 1.7}}});
  cases.push_back({"LpPool", {f({1, 2, 7, 7})}, {{"kernel_shape", {3, 3}}}});
  cases.push_back({"LpPool", {f({1, 3, 8, 9})}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}});
  cases.push_back({"LpPool", {f({2, 2, 7, 6})}, {{"kernel_shape", {2, 3}}, {"strides", {2, 2}}, {"ceil_mode", 1}, {"p", 1}}});
  cases.push_back({"LpPool", {f({1, 1, 9})}, {{"kernel_shape", {4}}, {"auto_pad", "SAME_LOWER"}, {"p", 3}}});
  cases.push_back({"LpPool", {f({1, 2, 9, 8})}, {{"kernel_shape", {2, 2}}, {"dilations", {2, 3}}, {"auto_pad", "SAME_UPPER"}}});
  // Hardmax: ties in small integers (the first maximum wins)
  cases.push_back({"Hardmax", {f({3, 7})}});
  cases.push_back({"Hardmax", {In{{2, 5, 3}, DType::F32, "uniform(-2,2)"}}, {{"axis", 1}}});
  cases.push_back({"Hardmax", {In{{2, 4}, DType::F32, "", std::vector<double>{1, 3, 3, 0, 2, 2, -1, 2}}}});
  cases.push_back({"Hardmax", {In{{4, 9}, DType::F32, "range(-3,1)"}}, {{"axis", 0}}});
  cases.push_back({"Hardmax", {typed({3, 17}, DType::F16)}});
  cases.push_back({"LpNormalization", {f({3, 7})}});
  cases.push_back({"LpNormalization", {f({2, 5, 3})}, {{"axis", 1}, {"p", 1}}});
  cases.push_back({"LpNormalization", {f({4, 1})}, {{"axis", 0}}});
  cases.push_back({"LpNormalization", {In{{2, 3}, DType::F32, "zeros"}}});
  // ArgMax, ArgMin: ties in small integers (first and last index), dtypes.
  for (const char *op : {"ArgMax", "ArgMin"}) {
    cases.push_back({op, {f({3, 7})}});
    cases.push_back({op, {f({2, 5, 3})}, {{"axis", 1}, {"keepdims", 0}}});
    cases.push_back({op, {typed({4, 9}, DType::I32, "uniform(-3,3)")}, {{"axis", -1}}});
    cases.push_back({op, {typed({4, 9}, DType::I32, "uniform(-3,3)")}, {{"axis", -1}, {"select_last_index", 1}}});
    cases.push_back({op, {typed({6, 2, 3}, DType::I64, "uniform(-2,2)")}, {{"select_last_index", 1}, {"keepdims", 0}}});
    cases.push_back({op, {typed({3, 17}, DType::F16)}, {{"axis", 1}}});
    cases.push_back({op, {typed({5, 3}, DType::I8, "uniform(-4,4)")}});
    cases.push_back({op, {typed({1}, DType::BF16)}});
  }
  cases.push_back({"DepthToSpace", {f({2, 8, 3, 5})}, {{"blocksize", 2}}});
  cases.push_back({"DepthToSpace", {f({1, 18, 2, 3})}, {{"blocksize", 3}, {"mode", "CRD"}}});
  cases.push_back({"SpaceToDepth", {f({2, 3, 4, 6})}, {{"blocksize", 2}}});
  cases.push_back({"SpaceToDepth", {f({1, 2, 9, 3})}, {{"blocksize", 3}, {"mode", "CRD"}}});
  cases.push_back({"SpaceToDepth", {typed({3, 1, 2, 2}, DType::I32)}, {{"blocksize", 1}}});
  cases.push_back({"DepthToSpace", {typed({1, 4, 1, 3}, DType::I64)}, {{"blocksize", 2}, {"mode", "DCR"}}});
  cases.push_back({"OneHot", {typed({3, 5}, DType::I64, "uniform(-7,7)"), ints({6}), f({2})}});
  cases.push_back({"OneHot", {typed({7}, DType::I32, "uniform(-4,4)"), omitted(), f({2})}, {{"depth", 4}, {"axis", 0}}});
  cases.push_back({"OneHot", {In{{2, 3}, DType::F32, "uniform(-3,3)"}, omitted(), typed({2}, DType::I32)}, {{"depth", 3}, {"axis", 1}}});
  cases.push_back({"EyeLike", {f({5, 7})}});
  cases.push_back({"EyeLike", {typed({4, 3}, DType::I32)}, {{"k", -2}, {"dtype", "f32"}}});
  cases.push_back({"EyeLike", {f({3, 3})}, {{"k", 5}}});
  cases.push_back({"Trilu", {f({5, 7})}});
  cases.push_back({"Trilu", {f({2, 7, 5})}, {{"upper", 0}}});
  cases.push_back({"Trilu", {f({3, 6}), In{{}, DType::I64, "", std::vector<double>{-2}}}});
  cases.push_back({"Trilu", {typed({4, 3}, DType::I32, "uniform(-9,9)"), In{{}, DType::I64, "", std::vector<double>{1}}}, {{"upper", 0}}});
  cases.push_back({"Trilu", {f({1, 3, 9})}, {{"k", 4}}});
  cases.push_back({"Trilu", {f({6, 2})}, {{"k", -7}, {"upper", 0}}});
  cases.push_back({"Trilu", {f({2, 5, 6}), typed({}, DType::I64, "uniform(-4,4)")}});
  cases.push_back({"Trilu", {f({7, 4}), typed({1}, DType::I64, "uniform(-4,4)")}, {{"upper", 0}}});
  return cases;
}

}  // namespace

std::vector<Case> all_op_cases() {
  std::vector<Case> all;
  for (auto part : {elementwise_cases(), linalg_cases(), conv_pool_cases(), norm_reduce_cases(), movement_cases(),
                    wide_and_unsigned_cases(), later_cases()})
    all.insert(all.end(), part.begin(), part.end());
  return all;
}


Graph make_case_graph(const Case &c, const std::string &name, const std::string &node) {
  Graph g;
  g.name = name;
  Node n;
  n.op = c.op;
  n.name = node;
  n.attrs = c.attrs;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const In &in = c.inputs[i];
    std::string tname = "x" + std::to_string(i);
    if (in.shape.empty() && in.dtype == DType::F32 && in.init == "omit") {
      n.inputs.push_back("");
      continue;
    }
    if (in.data)
      g.add_weight(tname, {in.dtype, to_sym_shape(in.shape)}, in.init, in.data);
    else
      g.add_input(tname, {in.dtype, to_sym_shape(in.shape)}, in.init);
    n.inputs.push_back(tname);
  }
  for (int o = 0; o < c.outputs; ++o) {
    n.outputs.push_back("y" + std::to_string(o));
    g.add_output("y" + std::to_string(o));
  }
  g.add_node(n);
  g.finalize();
  return g;
}

std::string describe_case(const Case &c) {
  std::ostringstream what;
  what << c.op << " " << c.attrs.dump() << " inputs";
  for (const In &in : c.inputs) what << " " << dtype_name(in.dtype) << shape_to_string(in.shape);
  return what.str();
}

}  // namespace atl::test
