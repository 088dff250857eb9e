// Operator definitions evaluated with compute::evaluate against hand-computed values.
#include "tests/unit/graph/ir/ops/op_test_util.h"

#include <cmath>
#include <limits>

using namespace optest;
using atl::Tensor;

namespace {
std::vector<double> iota(int n, double start = 1) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(start + i);
  return v;
}
}  // namespace

TEST_SUITE("graph") {

TEST_CASE("evaluate: broadcasting arithmetic, Where, integer Div, Cast") {
  CHECK(Op("Add", {T({2, 1}), T({3})}).eval({tensor({2, 1}, {1, 2}), tensor({3}, {10, 20, 30})}) ==
        std::vector<double>{11, 21, 31, 12, 22, 32});
  CHECK(Op("Div", {T({2}, DType::I32), T({1}, DType::I32)})
            .eval({tensor({2}, {7, -7}, DType::I32), tensor({1}, {2}, DType::I32)}) == std::vector<double>{3, -3});
  CHECK(Op("Where", {T({2}, DType::Bool), T({2}), T({1})})
            .eval({tensor({2}, {1, 0}, DType::Bool), tensor({2}, {5, 6}), tensor({1}, {-1})}) ==
        std::vector<double>{5, -1});
  CHECK(Op("Cast", {T({3})}, {{"to", "i32"}}).eval({tensor({3}, {1.7, -1.7, 2})}) == std::vector<double>{1, -1, 2});
  CHECK(Op("Less", {T({3}), T({})}).eval({tensor({3}, {1, 2, 3}), tensor({}, {2})}) == std::vector<double>{1, 0, 0});
  CHECK(Op("Pow", {T({2}), T({2})}).eval({tensor({2}, {2, 9}), tensor({2}, {3, 0.5})}) == std::vector<double>{8, 3});
}

TEST_CASE("evaluate: Elu, Selu, Softplus, Softsign, PRelu, Mod, CastLike") {
  check_close(Op("Elu", {T({3})}).eval({tensor({3}, {-1, 0, 2})}), {std::exp(-1.0) - 1, 0, 2});
  check_close(Op("Elu", {T({1})}, {{"alpha", 0.5}}).eval({tensor({1}, {-2})}), {0.5 * (std::exp(-2.0) - 1)});
  const double alpha = 1.67326319217681884765625, gamma = 1.05070102214813232421875;
  check_close(Op("Selu", {T({3})}).eval({tensor({3}, {-1, 0, 2})}), {gamma * alpha * (std::exp(-1.0) - 1), 0, 2 * gamma});
  check_close(Op("Selu", {T({2})}, {{"alpha", 2}, {"gamma", 3}}).eval({tensor({2}, {-1, 1})}), {6 * (std::exp(-1.0) - 1), 3});
  check_close(Op("Softplus", {T({4})}).eval({tensor({4}, {-1, 0, 1, 100})}),
              {std::log1p(std::exp(-1.0)), std::log(2.0), std::log1p(std::exp(1.0)), 100});
  check_close(Op("Softsign", {T({3})}).eval({tensor({3}, {-3, 0, 1})}), {-0.75, 0, 0.5});
  CHECK(Op("PRelu", {T({2, 2}), T({2})}).eval({tensor({2, 2}, {-1, -2, 3, -4}), tensor({2}, {0.5, 2})}) ==
        std::vector<double>{-0.5, -4, 3, -8});
  auto I = DType::I32;
  CHECK(Op("Mod", {T({4}, I), T({4}, I)}).eval({tensor({4}, {7, -7, 7, -7}, I), tensor({4}, {3, 3, -3, -3}, I)}) ==
        std::vector<double>{1, 2, -2, -1});
  CHECK(Op("Mod", {T({4}, I), T({4}, I)}, {{"fmod", 1}})
            .eval({tensor({4}, {7, -7, 7, -7}, I), tensor({4}, {3, 3, -3, -3}, I)}) == std::vector<double>{1, -1, 1, -1});
  check_close(Op("Mod", {T({3}), T({1})}, {{"fmod", 1}}).eval({tensor({3}, {5.5, -5.5, 1}), tensor({1}, {2})}),
              {1.5, -1.5, 1});
  CHECK(Op("CastLike", {T({3}), T({1}, I)}).eval({tensor({3}, {1.7, -1.7, 2}), tensor({1}, {0}, I)}) ==
        std::vector<double>{1, -1, 2});
}

TEST_CASE("evaluate: trigonometric functions, Round, IsInf, IsNaN, Xor, Celu, Shrink, Swish") {
  check_close(Op("Sin", {T({2})}).eval({tensor({2}, {0.5, -2})}), {std::sin(0.5), std::sin(-2.0)});
  check_close(Op("Acos", {T({2})}).eval({tensor({2}, {0.5, -1})}), {std::acos(0.5), std::acos(-1.0)});
  check_close(Op("Atanh", {T({2})}).eval({tensor({2}, {0.5, -0.25})}), {std::atanh(0.5), std::atanh(-0.25)});
  check_close(Op("Cosh", {T({1})}).eval({tensor({1}, {1.5})}), {std::cosh(1.5)});
  CHECK(Op("Round", {T({9})}).eval({tensor({9}, {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, -2.6, 7})}) ==
        std::vector<double>{0, 2, 2, -0.0, -2, -2, 2, -3, 7});
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(Op("IsInf", {T({4})}).eval({tensor({4}, {inf, -inf, 1, NAN})}) == std::vector<double>{1, 1, 0, 0});
  CHECK(Op("IsInf", {T({4})}, {{"detect_positive", 0}}).eval({tensor({4}, {inf, -inf, 1, NAN})}) ==
        std::vector<double>{0, 1, 0, 0});
  CHECK(Op("IsInf", {T({2})}, {{"detect_positive", 0}, {"detect_negative", 0}}).eval({tensor({2}, {inf, -inf})}) ==
        std::vector<double>{0, 0});
  CHECK(Op("IsNaN", {T({3})}).eval({tensor({3}, {NAN, inf, 0})}) == std::vector<double>{1, 0, 0});
  auto B = DType::Bool;
  CHECK(Op("Xor", {T({4}, B), T({4}, B)}).eval({tensor({4}, {0, 0, 1, 1}, B), tensor({4}, {0, 1, 0, 1}, B)}) ==
        std::vector<double>{0, 1, 1, 0});
  check_close(Op("Celu", {T({2})}, {{"alpha", 2}}).eval({tensor({2}, {-1, 3})}), {2 * (std::exp(-0.5) - 1), 3});
  CHECK(Op("ThresholdedRelu", {T({3})}).eval({tensor({3}, {0.5, 1, 2})}) == std::vector<double>{0, 0, 2});
  CHECK(Op("Shrink", {T({5})}, {{"bias", 1}, {"lambd", 1.5}}).eval({tensor({5}, {-2, -1, 0, 1, 2})}) ==
        std::vector<double>{-1, 0, 0, 0, 1});
  check_close(Op("Swish", {T({2})}, {{"alpha", 0.5}}).eval({tensor({2}, {2, -1})}),
              {2 / (1 + std::exp(-1.0)), -1 / (1 + std::exp(0.5))});
}

TEST_CASE("evaluate: activations") {
  check_close(Op("Gelu", {T({2})}).eval({tensor({2}, {1, -1})}), {0.8413447460685429, -0.15865525393145707});
  check_close(Op("Gelu", {T({1})}, {{"approximate", "tanh"}}).eval({tensor({1}, {1})}), {0.8411919906082768});
  check_close(Op("HardSwish", {T({3})}).eval({tensor({3}, {-4, 1, 4})}), {0, 1.0 * (1.0 / 6 + 0.5), 4});
  check_close(Op("HardSigmoid", {T({3})}).eval({tensor({3}, {-4, 1, 4})}), {0, 0.7, 1});
  check_close(Op("LeakyRelu", {T({2})}, {{"alpha", 0.1}}).eval({tensor({2}, {-2, 3})}), {-0.2, 3});
  // min > max: every value becomes max (ONNX)
  CHECK(Op("Clip", {T({3})}, {{"min", 2}, {"max", 1}}).eval({tensor({3}, {0, 1.5, 3})}) == std::vector<double>{1, 1, 1});
  CHECK(Op("Clip", {T({4})}, {{"min", -1}, {"max", 1}}).eval({tensor({4}, {-3, -0.5, 0.5, 3})}) ==
        std::vector<double>{-1, -0.5, 0.5, 1});
  CHECK(Op("Relu", {T({2})}).eval({tensor({2}, {-3, 3})}) == std::vector<double>{0, 3});
}

TEST_CASE("evaluate: MatMul with a 1-D operand and Gemm with alpha, beta, transB") {
  CHECK(Op("MatMul", {T({2}), T({2, 3})}).eval({tensor({2}, {1, 2}), tensor({2, 3}, iota(6))}) ==
        std::vector<double>{9, 12, 15});
  // A [[1,2],[3,4]], B^T with B = [[1,0],[1,1]] -> A B^T = [[1,3],[3,7]]; 2 * that + 0.5 * [10, 20]
  CHECK(Op("Gemm", {T({2, 2}), T({2, 2}), T({2})}, {{"transB", 1}, {"alpha", 2}, {"beta", 0.5}})
            .eval({tensor({2, 2}, {1, 2, 3, 4}), tensor({2, 2}, {1, 0, 1, 1}), tensor({2}, {10, 20})}) ==
        std::vector<double>{7, 16, 11, 24});
}

TEST_CASE("evaluate: Conv with pads and bias, grouped Conv") {
  Tensor x = tensor({1, 1, 3, 3}, iota(9)), w = tensor({1, 1, 2, 2}, {1, 1, 1, 1});
  CHECK(Op("Conv", {T({1, 1, 3, 3}), T({1, 1, 2, 2})}).eval({x, w}) == std::vector<double>{12, 16, 24, 28});
  // pads 1 at the begin only; bias 100
  CHECK(Op("Conv", {T({1, 1, 3, 3}), T({1, 1, 2, 2}), T({1})}, {{"pads", {1, 1, 0, 0}}, {"strides", {2, 2}}})
            .eval({x, w, tensor({1}, {100})}) == std::vector<double>{101, 105, 111, 128});
  // group 2: output channel 0 reads input channel 0, channel 1 reads channel 1
  Tensor x2 = tensor({1, 2, 1, 2}, {1, 2, 3, 4}), w2 = tensor({2, 1, 1, 1}, {10, 100});
  CHECK(Op("Conv", {T({1, 2, 1, 2}), T({2, 1, 1, 1})}, {{"group", 2}}).eval({x2, w2}) ==
        std::vector<double>{10, 20, 300, 400});
}

TEST_CASE("evaluate: ConvTranspose with strides, pads and groups") {
  Tensor x = tensor({1, 1, 2, 2}, {1, 2, 3, 4}), w = tensor({1, 1, 2, 2}, {1, 1, 1, 1});
  CHECK(Op("ConvTranspose", {T({1, 1, 2, 2}), T({1, 1, 2, 2})}).eval({x, w}) ==
        std::vector<double>{1, 3, 2, 4, 10, 6, 3, 7, 4});
  CHECK(Op("ConvTranspose", {T({1, 1, 2, 2}), T({1, 1, 2, 2})}, {{"strides", {2, 2}}}).eval({x, w}) ==
        std::vector<double>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  CHECK(Op("ConvTranspose", {T({1, 1, 2, 2}), T({1, 1, 2, 2})}, {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}})
            .eval({x, w}) == std::vector<double>{1, 2, 3, 4});
  // 1-D, kernel [1, 10], stride 2: y[2i + k] += x[i] w[k]
  CHECK(Op("ConvTranspose", {T({1, 1, 3}), T({1, 1, 2})}, {{"strides", {2}}})
            .eval({tensor({1, 1, 3}, {1, 2, 3}), tensor({1, 1, 2}, {1, 10})}) ==
        std::vector<double>{1, 10, 2, 20, 3, 30});
  // output_shape past the full result: ONNX's floor-division pads (NOTSET: extra at the end)
  Tensor x1 = tensor({1, 1, 2}, {1, 2}), w1 = tensor({1, 1, 1}, {1});
  CHECK(Op("ConvTranspose", {T({1, 1, 2}), T({1, 1, 1})}, {{"strides", {2}}, {"output_shape", {4}}}).eval({x1, w1}) ==
        std::vector<double>{1, 0, 2, 0});
  CHECK(Op("ConvTranspose", {T({1, 1, 2}), T({1, 1, 1})}, {{"strides", {2}}, {"auto_pad", "SAME_UPPER"}}).eval({x1, w1}) ==
        std::vector<double>{0, 1, 0, 2});
  // groups: 2 input channels, 1 output channel per group
  CHECK(Op("ConvTranspose", {T({1, 2, 1}), T({2, 1, 1})}, {{"group", 2}})
            .eval({tensor({1, 2, 1}, {3, 5}), tensor({2, 1, 1}, {2, 7})}) == std::vector<double>{6, 35});
}

TEST_CASE("evaluate: MaxPool and AveragePool padding rules") {
  Tensor x = tensor({1, 1, 3, 3}, iota(9));
  CHECK(Op("MaxPool", {T({1, 1, 3, 3})}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}, {"ceil_mode", 1}}).eval({x}) ==
        std::vector<double>{5, 6, 8, 9});
  CHECK(Op("MaxPool", {T({1, 1, 3, 3})}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}).eval({tensor({1, 1, 3, 3}, {-1, -2, -3, -4, -5, -6, -7, -8, -9})}) ==
        std::vector<double>{-1, -1, -2, -1, -1, -2, -4, -4, -5});
  check_close(Op("AveragePool", {T({1, 1, 3, 3})}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}).eval({x}),
              {3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7});
  check_close(Op("AveragePool", {T({1, 1, 3, 3})},
                 {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}, {"count_include_pad", 1}})
                  .eval({x}),
              {12.0 / 9, 21.0 / 9, 16.0 / 9, 27.0 / 9, 5, 33.0 / 9, 24.0 / 9, 39.0 / 9, 28.0 / 9});
  check_close(Op("AveragePool", {T({1, 1, 3})}, {{"kernel_shape", {2}}, {"strides", {2}}, {"ceil_mode", 1}})
                  .eval({tensor({1, 1, 3}, {1, 2, 3})}),
              {1.5, 3});
  check_close(Op("GlobalAveragePool", {T({1, 2, 2})}).eval({tensor({1, 2, 2}, {1, 2, 3, 5})}), {1.5, 4});
  CHECK(Op("GlobalMaxPool", {T({1, 2, 2})}).eval({tensor({1, 2, 2}, {1, 2, 3, 5})}) == std::vector<double>{2, 5});
}

TEST_CASE("evaluate: Softmax, LogSoftmax, LayerNormalization, BatchNormalization, InstanceNormalization") {
  double s = std::exp(1) + std::exp(2) + std::exp(3);
  check_close(Op("Softmax", {T({3})}).eval({tensor({3}, {1, 2, 3})}), {std::exp(1) / s, std::exp(2) / s, std::exp(3) / s});
  check_close(Op("Softmax", {T({2, 2})}, {{"axis", 0}}).eval({tensor({2, 2}, {0, 5, 0, 5})}), {0.5, 0.5, 0.5, 0.5});
  check_close(Op("LogSoftmax", {T({3})}).eval({tensor({3}, {1, 2, 3})}), {1 - std::log(s), 2 - std::log(s), 3 - std::log(s)});
  double r = 1 / std::sqrt(1.25 + 1e-5);
  Op ln("LayerNormalization", {T({1, 4}), T({4}), T({4})}, json::object(), 3);
  auto outs = ln.check_definition({}, {tensor({1, 4}, {1, 2, 3, 4}), tensor({4}, {1, 1, 1, 2}), tensor({4}, {0, 0, 0, 1})});
  check_close(outs[0].data, {-1.5 * r, -0.5 * r, 0.5 * r, 1.5 * r * 2 + 1});
  check_close(outs[1].data, {2.5});
  check_close(outs[2].data, {r});
  check_close(Op("BatchNormalization", {T({1, 2, 1}), T({2}), T({2}), T({2}), T({2})}, {{"epsilon", 0}})
                  .eval({tensor({1, 2, 1}, {3, 3}), tensor({2}, {2, 1}), tensor({2}, {1, 0}), tensor({2}, {1, 2}),
                         tensor({2}, {4, 1})}),
              {2.0 * (3 - 1) / 2 + 1, 1});
  check_close(Op("InstanceNormalization", {T({1, 1, 2}), T({1}), T({1})}, {{"epsilon", 0}})
                  .eval({tensor({1, 1, 2}, {1, 3}), tensor({1}, {2}), tensor({1}, {1})}),
              {-1, 3});
}

TEST_CASE("evaluate: reductions") {
  Tensor x = tensor({2, 3}, iota(6));
  CHECK(Op("ReduceSum", {T({2, 3})}, {{"axes", {1}}}).eval({x}) == std::vector<double>{6, 15});
  CHECK(Op("ReduceMean", {T({2, 3})}, {{"axes", {0}}, {"keepdims", 0}}).eval({x}) == std::vector<double>{2.5, 3.5, 4.5});
  CHECK(Op("ReduceProd", {T({2, 3})}).eval({x}) == std::vector<double>{720});
  CHECK(Op("ReduceMax", {T({2, 3})}, {{"axes", {-1}}}).eval({x}) == std::vector<double>{3, 6});
  CHECK(Op("ReduceMin", {T({2, 3})}, {{"keepdims", 0}}).eval({x}) == std::vector<double>{1});
}

TEST_CASE("evaluate: layout operators") {
  Tensor x = tensor({2, 3}, iota(6));
  CHECK(Op("Transpose", {T({2, 3})}).eval({x}) == std::vector<double>{1, 4, 2, 5, 3, 6});
  CHECK(Op("Reshape", {T({2, 3})}, {{"shape", {3, 2}}}).eval({x}) == iota(6));
  CHECK(Op("Reshape", {T({2, 3, 4})}, {{"shape", {4, -1}}}).eval({tensor({2, 3, 4}, iota(24))}) == iota(24));
  CHECK(Op("Flatten", {T({2, 3, 2})}, {{"axis", 2}}).eval({tensor({2, 3, 2}, iota(12))}) == iota(12));
  CHECK(Op("Unsqueeze", {T({2, 3})}, {{"axes", {1}}}).eval({x}) == iota(6));
  CHECK(Op("Squeeze", {T({1, 3})}).eval({tensor({1, 3}, {7, 8, 9})}) == std::vector<double>{7, 8, 9});
  CHECK(Op("Expand", {T({2, 1})}, {{"shape", {2, 2}}}).eval({tensor({2, 1}, {1, 2})}) == std::vector<double>{1, 1, 2, 2});
  CHECK(Op("Concat", {T({2, 1}), T({2, 2})}, {{"axis", 1}}).eval({tensor({2, 1}, {1, 2}), tensor({2, 2}, {3, 4, 5, 6})}) ==
        std::vector<double>{1, 3, 4, 2, 5, 6});
  auto parts = Op("Split", {T({5})}, {{"split", {2, 3}}}, 2).check_definition({}, {tensor({5}, iota(5))});
  CHECK(parts[0].data == std::vector<double>{1, 2});
  CHECK(parts[1].data == std::vector<double>{3, 4, 5});
  CHECK(Op("Slice", {T({10})}, {{"starts", {8}}, {"ends", {1}}, {"steps", {-3}}}).eval({tensor({10}, iota(10, 0))}) ==
        std::vector<double>{8, 5, 2});
  CHECK(Op("Gather", {T({3, 2}), T({3}, DType::I64)}, {{"axis", 0}})
            .eval({tensor({3, 2}, iota(6)), tensor({3}, {2, -3, -1}, DType::I64)}) ==
        std::vector<double>{5, 6, 1, 2, 5, 6});
}

TEST_CASE("evaluate: Pad modes") {
  Tensor x = tensor({3}, {1, 2, 3});
  auto pad = [&](const char *mode) { return Op("Pad", {T({3})}, {{"pads", {2, 2}}, {"mode", mode}}).eval({x}); };
  CHECK(pad("constant") == std::vector<double>{0, 0, 1, 2, 3, 0, 0});
  CHECK(pad("reflect") == std::vector<double>{3, 2, 1, 2, 3, 2, 1});
  CHECK(pad("edge") == std::vector<double>{1, 1, 1, 2, 3, 3, 3});
  CHECK(pad("wrap") == std::vector<double>{2, 3, 1, 2, 3, 1, 2});
  CHECK(Op("Pad", {T({3})}, {{"pads", {-1, 1}}, {"constant_value", 9}}).eval({x}) == std::vector<double>{2, 3, 9});
  Tensor m = tensor({2, 2}, {1, 2, 3, 4});
  CHECK(Op("Pad", {T({2, 2})}, {{"pads", {1, 1, 1, 1}}, {"mode", "reflect"}}).eval({m}) ==
        std::vector<double>{4, 3, 4, 3, 2, 1, 2, 1, 4, 3, 4, 3, 2, 1, 2, 1});
  CHECK(Op("Pad", {T({2, 2})}, {{"pads", {0, 1, 1, 0}}, {"mode", "edge"}}).eval({m}) ==
        std::vector<double>{1, 1, 2, 3, 3, 4, 3, 3, 4});
}

}  // TEST_SUITE
