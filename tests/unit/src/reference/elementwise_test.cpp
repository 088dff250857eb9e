// Reference elementwise operators: broadcasting, arithmetic, activations,
// Clip, Where, Cast, comparisons and logic, worked by hand.
#include "tests/unit/src/reference/reference_test_util.h"

#include <cmath>

using namespace atl;
using namespace atl::reference::test;
using nlohmann::json;

TEST_SUITE("src") {
TEST_CASE("reference Add broadcasts [3,1] + [1,4]") {
  Tensor a = f32({3, 1}, {1, 2, 3}), b = f32({1, 4}, {10, 20, 30, 40});
  check_f32(run1("Add", {}, {&a, &b}, f32t({3, 4})), {3, 4},
            {11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43});
}

TEST_CASE("reference Mul and Sub with rank-0 scalars") {
  Tensor s = f32({}, {2}), m = f32({2, 2}, {1, 2, 3, 4});
  check_f32(run1("Mul", {}, {&s, &m}, f32t({2, 2})), {2, 2}, {2, 4, 6, 8});
  check_f32(run1("Sub", {}, {&m, &s}, f32t({2, 2})), {2, 2}, {-1, 0, 1, 2});
  Tensor t = f32({}, {5});
  check_f32(run1("Sub", {}, {&s, &t}, f32t({})), {}, {-3});
}

TEST_CASE("reference broadcast of [2,3] against [3] and [2,1,3] against [4,1]") {
  Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6}), b = f32({3}, {10, 20, 30});
  check_f32(run1("Add", {}, {&a, &b}, f32t({2, 3})), {2, 3}, {11, 22, 33, 14, 25, 36});
  Tensor c = f32({2, 1, 3}, {1, 2, 3, 4, 5, 6}), d = f32({4, 1}, {0, 10, 20, 30});
  Tensor r = run1("Add", {}, {&c, &d}, f32t({2, 4, 3}));
  CHECK(r.shape == Shape{2, 4, 3});
  CHECK(r.get(r.offset({0, 2, 1})) == 22);
  CHECK(r.get(r.offset({1, 3, 2})) == 36);
}

TEST_CASE("reference incompatible broadcast is a user error") {
  Tensor a = f32({3}, {1, 2, 3}), b = f32({4}, {1, 2, 3, 4});
  CHECK_THROWS_WITH_AS(run1("Add", {}, {&a, &b}, f32t({4})), doctest::Contains("cannot be broadcast"), UserError);
}

TEST_CASE("reference integer Div truncates toward zero; by zero as the generated code converts x / 0") {
  Tensor a = make(DType::I32, {4}, {7, -7, 7, -7}), b = make(DType::I32, {4}, {2, 2, -2, -2});
  check_tensor(run1("Div", {}, {&a, &b}, type(DType::I32, {4})), DType::I32, {4}, {3, -3, -3, 3});
  Tensor z = make(DType::I32, {}, {0}), zero = make(DType::I32, {4}, {7, 0, -7, 0});
  check_tensor(run1("Div", {}, {&zero, &z}, type(DType::I32, {4})), DType::I32, {4}, {0, 0, 0, 0});
  Tensor a64 = make(DType::I64, {2}, {7, -7}), z64 = make(DType::I64, {}, {0});
  check_tensor(run1("Div", {}, {&a64, &z64}, type(DType::I64, {2})), DType::I64, {2},
               {9223372036854775807.0, -9223372036854775808.0});
}

TEST_CASE("reference float Div and Pow") {
  Tensor a = f32({2}, {1, 9}), b = f32({2}, {4, 2});
  check_f32(run1("Div", {}, {&a, &b}, f32t({2})), {2}, {0.25, 4.5});
  Tensor base = f32({2}, {2, 3}), e = f32({2}, {3, 2});
  check_f32(run1("Pow", {}, {&base, &e}, f32t({2})), {2}, {8, 9});
  Tensor sq = f32({2}, {4, 9}), half = f32({}, {0.5});
  check_f32(run1("Pow", {}, {&sq, &half}, f32t({2})), {2}, {2, 3});
}

TEST_CASE("reference Max and Min are variadic with broadcasting") {
  Tensor a = f32({3}, {1, 5, 3}), b = f32({1}, {4}), c = f32({3}, {2, 2, 6});
  check_f32(run1("Max", {}, {&a, &b, &c}, f32t({3})), {3}, {4, 5, 6});
  check_f32(run1("Min", {}, {&a, &b, &c}, f32t({3})), {3}, {1, 2, 3});
  check_f32(run1("Min", {}, {&a}, f32t({3})), {3}, {1, 5, 3});
  Tensor n = f32({3}, {NAN, 0, 0});
  check_f32(run1("Max", {}, {&a, &n}, f32t({3})), {3}, {NAN, 5, 3});
}

TEST_CASE("reference Relu and LeakyRelu") {
  Tensor x = f32({3}, {-2, 0, 3});
  check_f32(run1("Relu", {}, {&x}, f32t({3})), {3}, {0, 0, 3});
  check_f32(run1("LeakyRelu", {}, {&x}, f32t({3})), {3}, {-0.02, 0, 3});
  check_f32(run1("LeakyRelu", {{"alpha", 0.5}}, {&x}, f32t({3})), {3}, {-1, 0, 3});
}

TEST_CASE("reference Sigmoid, Tanh, Exp, Log, Sqrt, Reciprocal, Neg, Abs, Erf") {
  Tensor x = f32({2}, {0, std::log(3.0)});
  check_f32(run1("Sigmoid", {}, {&x}, f32t({2})), {2}, {0.5, 0.75});
  Tensor y = f32({3}, {0, 1, -1});
  check_f32(run1("Tanh", {}, {&y}, f32t({3})), {3}, {0, 0.7615941559557649, -0.7615941559557649});
  check_f32(run1("Exp", {}, {&y}, f32t({3})), {3}, {1, 2.718281828459045, 0.36787944117144233});
  check_f32(run1("Erf", {}, {&y}, f32t({3})), {3}, {0, 0.8427007929497149, -0.8427007929497149});
  check_f32(run1("Neg", {}, {&y}, f32t({3})), {3}, {0, -1, 1});
  check_f32(run1("Abs", {}, {&y}, f32t({3})), {3}, {0, 1, 1});
  Tensor p = f32({3}, {1, 16, 0.25});
  check_f32(run1("Log", {}, {&p}, f32t({3})), {3}, {0, 2.772588722239781, -1.3862943611198906});
  check_f32(run1("Sqrt", {}, {&p}, f32t({3})), {3}, {1, 4, 0.5});
  check_f32(run1("Reciprocal", {}, {&p}, f32t({3})), {3}, {1, 0.0625, 4});
}

TEST_CASE("reference Gelu exact and tanh forms") {
  Tensor x = f32({3}, {-1, 0, 1});
  // 0.5 x (1 + erf(x / sqrt 2)): Phi(1) = 0.8413447460685429.
  check_f32(run1("Gelu", {}, {&x}, f32t({3})), {3}, {-0.15865525393145707, 0, 0.8413447460685429});
  check_f32(run1("Gelu", {{"approximate", "none"}}, {&x}, f32t({3})), {3},
            {-0.15865525393145707, 0, 0.8413447460685429});
  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
  check_f32(run1("Gelu", {{"approximate", "tanh"}}, {&x}, f32t({3})), {3},
            {-0.15880800939172324, 0, 0.8411919906082768});
  CHECK_THROWS_WITH_AS(run1("Gelu", {{"approximate", "fast"}}, {&x}, f32t({3})), doctest::Contains("approximate"),
                       UserError);
}

TEST_CASE("reference HardSigmoid and HardSwish") {
  Tensor x = f32({4}, {-3, 0, 1, 3});
  check_f32(run1("HardSigmoid", {}, {&x}, f32t({4})), {4}, {0, 0.5, 0.7, 1});
  check_f32(run1("HardSigmoid", {{"alpha", 0.5}, {"beta", 0.25}}, {&x}, f32t({4})), {4}, {0, 0.25, 0.75, 1});
  Tensor y = f32({5}, {-4, -1, 0, 1, 4});
  check_f32(run1("HardSwish", {}, {&y}, f32t({5})), {5}, {0, -1.0 / 3, 0, 2.0 / 3, 4});
}

TEST_CASE("reference Clip with optional min and max") {
  Tensor x = f32({3}, {-2, 0.5, 3});
  check_f32(run1("Clip", {{"min", 0}, {"max", 1}}, {&x, nullptr, nullptr}, f32t({3})), {3}, {0, 0.5, 1});
  check_f32(run1("Clip", {{"max", 1}}, {&x, nullptr, nullptr}, f32t({3})), {3}, {-2, 0.5, 1});
  check_f32(run1("Clip", {{"min", 0}}, {&x}, f32t({3})), {3}, {0, 0.5, 3});
  check_f32(run1("Clip", {}, {&x}, f32t({3})), {3}, {-2, 0.5, 3});
  Tensor i = make(DType::I32, {3}, {-5, 2, 9});
  check_tensor(run1("Clip", {{"min", -1}, {"max", 4}}, {&i}, type(DType::I32, {3})), DType::I32, {3}, {-1, 2, 4});
}

TEST_CASE("reference Where broadcasts condition and both branches") {
  Tensor c = make(DType::Bool, {2, 1}, {1, 0}), x = f32({1, 2}, {1, 2}), y = f32({}, {9});
  check_f32(run1("Where", {}, {&c, &x, &y}, f32t({2, 2})), {2, 2}, {1, 2, 9, 9});
}

TEST_CASE("reference Cast truncates to integers and rounds to f16") {
  Tensor x = f32({4}, {2.7, -2.7, 0.5, -0.5});
  check_tensor(run1("Cast", {{"to", "i32"}}, {&x}, type(DType::I32, {4})), DType::I32, {4}, {2, -2, 0, 0});
  check_tensor(run1("Cast", {{"to", 6}}, {&x}, type(DType::I32, {4})), DType::I32, {4}, {2, -2, 0, 0});
  // f16 keeps 10 mantissa bits: 1 + 2^-11 ties to even (1), 1 + 3*2^-11 rounds up to 1 + 2^-9.
  Tensor h = f32({3}, {1.0 + 1.0 / 2048, 1.0 + 3.0 / 2048, 0.1});
  Tensor r = run1("Cast", {{"to", "f16"}}, {&h}, type(DType::F16, {3}));
  CHECK(r.dtype == DType::F16);
  CHECK(r.data[0] == 1.0);
  CHECK(r.data[1] == 1.0 + 1.0 / 512);
  CHECK(r.data[2] == 0.0999755859375);
  Tensor r2 = run1("Cast", {{"to", 10}}, {&h}, type(DType::F16, {3}));
  CHECK(r2.data[1] == 1.0 + 1.0 / 512);
  check_tensor(run1("Cast", {{"to", "bool"}}, {&x}, type(DType::Bool, {4})), DType::Bool, {4}, {1, 1, 1, 1});
  Tensor i = make(DType::I64, {2}, {3, -4});
  check_f32(run1("Cast", {{"to", "float"}}, {&i}, f32t({2})), {2}, {3, -4});
  CHECK_THROWS_WITH_AS(run1("Cast", {{"to", "complex64"}}, {&x}, f32t({4})), doctest::Contains("unsupported target"),
                       UserError);
}

TEST_CASE("reference Identity copies") {
  Tensor x = make(DType::I8, {2}, {-3, 7});
  check_tensor(run1("Identity", {}, {&x}, type(DType::I8, {2})), DType::I8, {2}, {-3, 7});
}

TEST_CASE("reference comparisons produce bool") {
  Tensor x = f32({3}, {1, 2, 3}), two = f32({}, {2}), y = f32({3}, {1, 5, 3});
  auto cmp = [&](const char *op, const Tensor &b) { return run1(op, {}, {&x, &b}, type(DType::Bool, {3})); };
  check_tensor(cmp("Equal", y), DType::Bool, {3}, {1, 0, 1});
  check_tensor(cmp("Less", two), DType::Bool, {3}, {1, 0, 0});
  check_tensor(cmp("Greater", two), DType::Bool, {3}, {0, 0, 1});
  check_tensor(cmp("LessOrEqual", two), DType::Bool, {3}, {1, 1, 0});
  check_tensor(cmp("GreaterOrEqual", two), DType::Bool, {3}, {0, 1, 1});
}

TEST_CASE("reference Not, And, Or") {
  Tensor a = make(DType::Bool, {4}, {0, 0, 1, 1}), b = make(DType::Bool, {4}, {0, 1, 0, 1});
  check_tensor(run1("Not", {}, {&a}, type(DType::Bool, {4})), DType::Bool, {4}, {1, 1, 0, 0});
  check_tensor(run1("And", {}, {&a, &b}, type(DType::Bool, {4})), DType::Bool, {4}, {0, 0, 0, 1});
  check_tensor(run1("Or", {}, {&a, &b}, type(DType::Bool, {4})), DType::Bool, {4}, {0, 1, 1, 1});
}

TEST_CASE("reference rejects unknown operators and missing inputs") {
  Tensor x = f32({1}, {1});
  CHECK_THROWS_WITH_AS(run1("Frobnicate", {}, {&x}, f32t({1})), doctest::Contains("Frobnicate: the reference"),
                       UserError);
  CHECK_THROWS_WITH_AS(run1("Add", {}, {&x, nullptr}, f32t({1})), doctest::Contains("input 1 is required"), UserError);
  CHECK_THROWS_WITH_AS(run1("Add", {}, {&x, nullptr}, f32t({1})), doctest::Contains("node 'n0'"), UserError);
}

TEST_CASE("reference Elu, Selu, Softplus and Softsign") {
  Tensor x = f32({3}, {-1, 0, 2});
  check_f32(run1("Elu", {}, {&x}, f32t({3})), {3}, {std::exp(-1.0) - 1, 0, 2});
  check_f32(run1("Elu", {{"alpha", 2}}, {&x}, f32t({3})), {3}, {2 * (std::exp(-1.0) - 1), 0, 2});
  // ONNX's defaults: alpha 1.6732632, gamma 1.0507010.
  check_f32(run1("Selu", {}, {&x}, f32t({3})), {3}, {1.0507010 * 1.6732632 * (std::exp(-1.0) - 1), 0, 2 * 1.0507010},
            1e-6);
  check_f32(run1("Selu", {{"alpha", 2}, {"gamma", 3}}, {&x}, f32t({3})), {3}, {6 * (std::exp(-1.0) - 1), 0, 6});
  Tensor big = f32({4}, {-100, 0, 1, 1000});
  // log(exp(x) + 1): exp(1000) would overflow, the result is 1000.
  check_f32(run1("Softplus", {}, {&big}, f32t({4})), {4}, {std::exp(-100.0), std::log(2.0), std::log(1 + std::exp(1.0)), 1000});
  check_f32(run1("Softsign", {}, {&x}, f32t({3})), {3}, {-0.5, 0, 2.0 / 3});
}

TEST_CASE("reference trigonometric and hyperbolic functions") {
  Tensor x = f32({3}, {-0.5, 0.25, 0.75});
  check_f32(run1("Sin", {}, {&x}, f32t({3})), {3}, {std::sin(-0.5), std::sin(0.25), std::sin(0.75)});
  check_f32(run1("Acos", {}, {&x}, f32t({3})), {3}, {std::acos(-0.5), std::acos(0.25), std::acos(0.75)});
  check_f32(run1("Atanh", {}, {&x}, f32t({3})), {3}, {std::atanh(-0.5), std::atanh(0.25), std::atanh(0.75)});
  Tensor y = f32({2}, {1, 2});
  check_f32(run1("Acosh", {}, {&y}, f32t({2})), {2}, {0, std::acosh(2.0)});
}

TEST_CASE("reference Round half to even, IsInf, IsNaN, Xor") {
  Tensor x = f32({6}, {0.5, 1.5, 2.5, -2.5, 2.6, -0.4});
  check_f32(run1("Round", {}, {&x}, f32t({6})), {6}, {0, 2, 2, -2, 3, -0.0});
  Tensor s = f32({4}, {INFINITY, -INFINITY, NAN, 1});
  check_tensor(run1("IsInf", {}, {&s}, type(DType::Bool, {4})), DType::Bool, {4}, {1, 1, 0, 0});
  check_tensor(run1("IsInf", {{"detect_negative", 0}}, {&s}, type(DType::Bool, {4})), DType::Bool, {4}, {1, 0, 0, 0});
  check_tensor(run1("IsNaN", {}, {&s}, type(DType::Bool, {4})), DType::Bool, {4}, {0, 0, 1, 0});
  Tensor a = make(DType::Bool, {2, 1}, {0, 1}), b = make(DType::Bool, {2}, {0, 1});
  check_tensor(run1("Xor", {}, {&a, &b}, type(DType::Bool, {2, 2})), DType::Bool, {2, 2}, {0, 1, 1, 0});
}

TEST_CASE("reference Celu, ThresholdedRelu, Shrink, Swish") {
  Tensor x = f32({4}, {-2, -0.25, 0.5, 3});
  check_f32(run1("Celu", {{"alpha", 2}}, {&x}, f32t({4})), {4}, {2 * (std::exp(-1.0) - 1), 2 * (std::exp(-0.125) - 1), 0.5, 3});
  check_f32(run1("ThresholdedRelu", {{"alpha", 0.5}}, {&x}, f32t({4})), {4}, {0, 0, 0, 3});
  check_f32(run1("Shrink", {{"bias", 0.5}, {"lambd", 0.4}}, {&x}, f32t({4})), {4}, {-1.5, 0, 0, 2.5});
  check_f32(run1("Swish", {}, {&x}, f32t({4})), {4},
            {-2 / (1 + std::exp(2.0)), -0.25 / (1 + std::exp(0.25)), 0.5 / (1 + std::exp(-0.5)), 3 / (1 + std::exp(-3.0))});
}

TEST_CASE("reference PRelu broadcasts slope to X") {
  Tensor x = f32({2, 3}, {-1, 2, -3, 4, -5, 6}), s = f32({3}, {0.5, 2, 0.25});
  check_f32(run1("PRelu", {}, {&x, &s}, f32t({2, 3})), {2, 3}, {-0.5, 2, -0.75, 4, -10, 6});
  Tensor wide = f32({2, 2, 3}, std::vector<double>(12, 1));
  CHECK_THROWS_WITH_AS(run1("PRelu", {}, {&x, &wide}, f32t({2, 2, 3})), doctest::Contains("does not broadcast to X"),
                       UserError);
}

TEST_CASE("reference Mod: floored for integers, fmod truncated") {
  Tensor a = make(DType::I32, {4}, {7, -7, 7, -7}), b = make(DType::I32, {4}, {3, 3, -3, -3});
  check_tensor(run1("Mod", {}, {&a, &b}, type(DType::I32, {4})), DType::I32, {4}, {1, 2, -2, -1});
  check_tensor(run1("Mod", {{"fmod", 1}}, {&a, &b}, type(DType::I32, {4})), DType::I32, {4}, {1, -1, 1, -1});
  Tensor x = f32({3}, {5.5, -5.5, 0.25}), y = f32({1}, {-2});
  check_f32(run1("Mod", {{"fmod", 1}}, {&x, &y}, f32t({3})), {3}, {1.5, -1.5, 0.25});
  CHECK_THROWS_WITH_AS(run1("Mod", {}, {&x, &y}, f32t({3})), doctest::Contains("fmod=0 needs integer inputs"), UserError);
}

TEST_CASE("reference CastLike takes target_type's dtype") {
  Tensor x = f32({3}, {1.7, -1.7, 300}), t = make(DType::I8, {1}, {0});
  check_tensor(run1("CastLike", {}, {&x, &t}, type(DType::I8, {3})), DType::I8, {3}, {1, -1, 44});
}
}
