// Shape and dtype inference, FLOPs and patterns of the elementwise operators.
#include "tests/unit/graph/ir/ops/op_test_util.h"

using namespace optest;
using atl::UserError;

TEST_SUITE("graph") {

TEST_CASE("elementwise: unary ops keep shape and dtype") {
  for (const char *op : {"Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal", "Neg", "Abs", "Erf", "Gelu",
                         "HardSigmoid", "HardSwish", "LeakyRelu", "Identity", "Elu", "Selu", "Softplus", "Softsign",
                         "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Round", "Celu",
                        "ThresholdedRelu", "Shrink", "Swish"}) {
    INFO(op);
    CHECK(Op(op, {T({2, 3})}).type() == "f32[2, 3]");
    CHECK(Op(op, {T({S("N"), 3}, DType::F16)}).type() == "f16[N, 3]");
    CHECK(Op(op, {T({2, 3})}).pattern() == atl::PatternKind::Elementwise);
  }
}

TEST_CASE("elementwise: numpy broadcasting corners") {
  CHECK(Op("Add", {T({2, 3, 4}), T({4})}).type() == "f32[2, 3, 4]");
  CHECK(Op("Add", {T({2, 1, 4}), T({3, 1})}).type() == "f32[2, 3, 4]");
  CHECK(Op("Mul", {T({}), T({5})}).type() == "f32[5]");
  CHECK(Op("Sub", {T({1}), T({1, 1})}).type() == "f32[1, 1]");
  CHECK(Op("Div", {T({S("N"), 1}), T({1, 8})}).type() == "f32[N, 8]");
  CHECK(Op("Add", {T({S("N"), 8}), T({S("N"), 8})}).type() == "f32[N, 8]");
  CHECK(Op("Add", {T({S("N"), 8}), T({1, 8})}).type() == "f32[N, 8]");
  CHECK(Op("Max", {T({3}), T({2, 1}), T({1, 1, 3})}).type() == "f32[1, 2, 3]");
  CHECK(Op("Min", {T({3})}).type() == "f32[3]");
}

TEST_CASE("elementwise: broadcasting errors name both shapes") {
  CHECK_THROWS_WITH_AS(Op("Add", {T({2, 3}), T({4})}).infer(),
                       doctest::Contains("Add: shapes [2, 3] and [4] do not broadcast: dimension 3 against 4"),
                       UserError);
  CHECK_THROWS_WITH_AS(Op("Add", {T({S("N")}), T({4})}).infer(), doctest::Contains("symbolic dimension broadcasts"),
                       UserError);
  CHECK_THROWS_WITH_AS(Op("Add", {T({S("N")}), T({S("M")})}).infer(), doctest::Contains("dimension N against M"),
                       UserError);
}

TEST_CASE("elementwise: binary patterns") {
  CHECK(Op("Add", {T({2, 3}), T({2, 3})}).pattern() == atl::PatternKind::Elementwise);
  CHECK(Op("Add", {T({2, 3}), T({3})}).pattern() == atl::PatternKind::Broadcast);
  CHECK(Op("Add", {T({2, 3}), T({3})}).info().pattern == atl::PatternKind::Broadcast);
}

TEST_CASE("elementwise: dtype rules") {
  CHECK(Op("Less", {T({2}), T({2})}).type() == "bool[2]");
  CHECK(Op("Equal", {T({2}, DType::I32), T({1}, DType::I32)}).type() == "bool[2]");
  CHECK(Op("And", {T({2}, DType::Bool), T({2}, DType::Bool)}).type() == "bool[2]");
  CHECK(Op("Not", {T({2}, DType::Bool)}).type() == "bool[2]");
  CHECK(Op("Where", {T({2, 1}, DType::Bool), T({3}), T({1})}).type() == "f32[2, 3]");
  CHECK(Op("Relu", {T({2}, DType::I32)}).type() == "i32[2]");
  CHECK(Op("Pow", {T({2}), T({}, DType::I32)}).type() == "f32[2]");
  CHECK(Op("Cast", {T({2})}, {{"to", "i32"}}).type() == "i32[2]");
  CHECK(Op("Cast", {T({2})}, {{"to", 10}}).type() == "f16[2]");
  CHECK_THROWS_WITH_AS(Op("Exp", {T({2}, DType::I32)}).infer(),
                       doctest::Contains("Exp: input 'input' must be a float tensor"), UserError);
  CHECK_THROWS_WITH_AS(Op("Not", {T({2})}).infer(), doctest::Contains("must be a bool tensor, not f32"), UserError);
  CHECK_THROWS_WITH_AS(Op("Add", {T({2}), T({2}, DType::F16)}).infer(),
                       doctest::Contains("input 'A' is f32 but input 'B' is f16"), UserError);
  CHECK_THROWS_WITH_AS(Op("Where", {T({2}), T({2}), T({2})}).infer(),
                       doctest::Contains("input 'condition' must be a bool tensor"), UserError);
  CHECK_THROWS_WITH_AS(Op("Add", {T({2}, DType::Bool), T({2}, DType::Bool)}).infer(),
                       doctest::Contains("must be a numeric tensor, not bool"), UserError);
  CHECK_THROWS_WITH_AS(Op("Cast", {T({2})}, {{"to", "u16"}}).infer(), doctest::Contains("'to' names no supported"),
                       UserError);
  CHECK_THROWS_WITH_AS(Op("Cast", {T({2})}).infer(), doctest::Contains("'to' is required"), UserError);
}

TEST_CASE("elementwise: attribute checks") {
  CHECK_THROWS_WITH_AS(Op("Gelu", {T({2})}, {{"approximate", "fast"}}).infer(),
                       doctest::Contains("approximate must be 'none' or 'tanh'"), UserError);
  CHECK_THROWS_WITH_AS(Op("LeakyRelu", {T({2})}, {{"alpha", "x"}}).infer(), doctest::Contains("must be a number"),
                       UserError);
  CHECK_THROWS_WITH_AS(Op("Clip", {T({2}), T({})}).infer(), doctest::Contains("'min' must be a constant"), UserError);
}

TEST_CASE("elementwise: PRelu broadcasts slope to X only") {
  CHECK(Op("PRelu", {T({2, 3, 4, 5}), T({3, 1, 1})}).type() == "f32[2, 3, 4, 5]");
  CHECK(Op("PRelu", {T({2, 3}), T({})}).type() == "f32[2, 3]");
  CHECK(Op("PRelu", {T({2, 3}, DType::I32), T({3}, DType::I32)}).type() == "i32[2, 3]");
  CHECK(Op("PRelu", {T({2, 3}), T({3})}).pattern() == atl::PatternKind::Broadcast);
  CHECK_THROWS_WITH_AS(Op("PRelu", {T({3}), T({2, 3})}).infer(),
                       doctest::Contains("PRelu: slope f32[2, 3] does not broadcast to X f32[3]"), UserError);
  CHECK_THROWS_WITH_AS(Op("PRelu", {T({3}), T({3}, DType::F16)}).infer(), doctest::Contains("is f32 but input 'slope' is f16"),
                       UserError);
  CHECK(Op("PRelu", {T({2, 3}), T({3})}).define().text == "Y(i0, i1) = X(i0, i1) < 0 ? slope(i1) * X(i0, i1) : X(i0, i1)");
}

TEST_CASE("elementwise: Mod's fmod and dtypes") {
  CHECK(Op("Mod", {T({4}, DType::I32), T({1}, DType::I32)}).type() == "i32[4]");
  CHECK(Op("Mod", {T({2, 1}), T({3})}, {{"fmod", 1}}).type() == "f32[2, 3]");
  CHECK_THROWS_WITH_AS(Op("Mod", {T({4}), T({4})}).infer(),
                       doctest::Contains("Mod: fmod=0 (integer modulo) needs integer inputs; f32 inputs need fmod=1"),
                       UserError);
  CHECK_THROWS_WITH_AS(Op("Mod", {T({4}, DType::I64), T({4}, DType::I64)}, {{"fmod", 2}}).infer(),
                       doctest::Contains("fmod must be 0 or 1, got 2"), UserError);
  CHECK_THROWS_WITH_AS(Op("Mod", {T({4}, DType::I64), T({4}, DType::I32)}).infer(),
                       doctest::Contains("input 'A' is i64 but input 'B' is i32"), UserError);
  CHECK(Op("Mod", {T({3}, DType::I32), T({3}, DType::I32)}).define().text == "C(i0) = A(i0) % B(i0)");
}

TEST_CASE("elementwise: CastLike takes target_type's dtype and input's shape") {
  CHECK(Op("CastLike", {T({2, 3}), T({1}, DType::I32)}).type() == "i32[2, 3]");
  CHECK(Op("CastLike", {T({2, 3}, DType::I64), T({4, 4}, DType::F16)}).type() == "f16[2, 3]");
  CHECK(Op("CastLike", {T({2, 3}), T({5}, DType::Bool)}).pattern() == atl::PatternKind::Elementwise);
  atl::OpDefinition d = Op("CastLike", {T({2}), T({7}, DType::I32)}).define();
  CHECK(d.text == "output(i0) = input(i0)");
  CHECK(d.inputs == std::vector<std::string>{"input", "target_type"});
  CHECK_THROWS_WITH_AS(Op("CastLike", {T({2}), std::nullopt}).infer(), doctest::Contains("CastLike"), UserError);
}

TEST_CASE("elementwise: Xor, IsNaN and IsInf give bool") {
  auto B = DType::Bool;
  CHECK(Op("Xor", {T({2, 1}, B), T({3}, B)}).type() == "bool[2, 3]");
  CHECK(Op("Xor", {T({2, 3}, B), T({3}, B)}).define().text == "C(i0, i1) = A(i0, i1) != B(i1)");
  CHECK_THROWS_WITH_AS(Op("Xor", {T({2}), T({2})}).infer(), doctest::Contains("Xor"), UserError);
  CHECK(Op("IsNaN", {T({4}, DType::F16)}).type() == "bool[4]");
  CHECK(Op("IsNaN", {T({4})}).define().text == "Y(i0) = X(i0) != X(i0)");
  CHECK(Op("IsInf", {T({2, 3})}).type() == "bool[2, 3]");
  CHECK(Op("IsInf", {T({4})}).define().text == "Y(i0) = abs(X(i0)) == inf");
  CHECK(Op("IsInf", {T({4})}, {{"detect_negative", 0}}).define().text == "Y(i0) = X(i0) == inf");
  CHECK(Op("IsInf", {T({4})}, {{"detect_positive", 0}}).define().text == "Y(i0) = X(i0) == (-inf)");
  CHECK_THROWS_WITH_AS(Op("IsInf", {T({4}, DType::I32)}).infer(), doctest::Contains("IsInf"), UserError);
}

TEST_CASE("elementwise: trigonometric functions, Round, Celu, ThresholdedRelu, Shrink, Swish") {
  CHECK(Op("Acosh", {T({3})}).define().text == "output(i0) = acosh(input(i0))");
  CHECK(Op("Sin", {T({3}, DType::BF16)}).type() == "bf16[3]");
  CHECK_THROWS_WITH_AS(Op("Cos", {T({3}, DType::I32)}).infer(), doctest::Contains("Cos"), UserError);
  CHECK(Op("Round", {T({2})}).define().text ==
        "Y(i0) = (X(i0) - floor(X(i0))) > 0.5 ? floor(X(i0)) + 1 : (X(i0) - floor(X(i0))) < 0.5 ? floor(X(i0)) : "
        "floor(X(i0)) - 2 * floor(floor(X(i0)) / 2) == 0 ? floor(X(i0)) : floor(X(i0)) + 1");
  CHECK(Op("ThresholdedRelu", {T({2})}, {{"alpha", 2}}).define().text == "Y(i0) = X(i0) > 2 ? X(i0) : 0");
  CHECK(Op("Shrink", {T({2}, DType::I8)}).type() == "i8[2]");
  CHECK(Op("Shrink", {T({2})}, {{"bias", 1.5}}).define().text ==
        "output(i0) = input(i0) < -0.5 ? input(i0) + 1.5 : input(i0) > 0.5 ? input(i0) - 1.5 : 0");
  CHECK(Op("Swish", {T({2})}).define().text == "Y(i0) = X(i0) * sigmoid(1 * X(i0))");
  CHECK(Op("Celu", {T({2})}, {{"alpha", 2}}).define().text == "Y(i0) = max(X(i0), 0) + min(0, 2 * (exp(X(i0) / 2) - 1))");
}

TEST_CASE("elementwise: flops") {
  CHECK(Op("Sin", {T({10})}).flops() == 10);
  CHECK(Op("Round", {T({10})}).flops() == 60);
  CHECK(Op("Xor", {T({10}, DType::Bool), T({10}, DType::Bool)}).flops() == 10);
  CHECK(Op("Elu", {T({10})}).flops() == 30);
  CHECK(Op("Softsign", {T({10})}).flops() == 30);
  CHECK(Op("Mod", {T({10}, DType::I32), T({10}, DType::I32)}).flops() == 10);
  CHECK(Op("Mod", {T({10}), T({10})}, {{"fmod", 1}}).flops() == 40);
  CHECK(Op("PRelu", {T({2, 5}), T({5})}).flops() == 20);
  CHECK(Op("CastLike", {T({10}), T({1}, DType::F16)}).flops() == 0);
  CHECK(Op("Relu", {T({4, 5})}).flops() == 20);
  CHECK(Op("Add", {T({4, 5}), T({5})}).flops() == 20);
  CHECK(Op("Max", {T({4}), T({4}), T({4})}).flops() == 8);
  CHECK(Op("Gelu", {T({10})}).flops() == 50);
  CHECK(Op("Gelu", {T({10})}, {{"approximate", "tanh"}}).flops() == 90);
  CHECK(Op("Clip", {T({10})}, {{"min", 0}}).flops() == 10);
  CHECK(Op("Clip", {T({10})}, {{"min", 0}, {"max", 6}}).flops() == 20);
  CHECK(Op("Cast", {T({10})}, {{"to", "f16"}}).flops() == 0);
  CHECK(Op("Identity", {T({10})}).flops() == 0);
}

TEST_CASE("elementwise: broadcasting definition text") {
  atl::OpDefinition d = Op("Add", {T({2, 1, 4}), T({3, 1})}).define();
  CHECK(d.text == "C(i0, i1, i2) = A(i0, 0, i2) + B(i1, 0)");
  CHECK(d.inputs == std::vector<std::string>{"A", "B"});
  CHECK(d.outputs == std::vector<std::string>{"C"});
  CHECK(Op("Clip", {T({3}), std::nullopt, std::nullopt}, {{"max", 6}}).define().text ==
        "output(i0) = min(input(i0), 6)");
  CHECK(Op("Max", {T({3}), T({3})}).define().text == "Y(i0) = max(data_0(i0), data_1(i0))");
}

}  // TEST_SUITE
