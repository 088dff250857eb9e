// Reference BatchNormalization, LayerNormalization, RMSNormalization,
// InstanceNormalization, Softmax and LogSoftmax, worked by hand.
#include "tests/unit/src/reference/reference_test_util.h"

#include <cmath>

using namespace atl;
using namespace atl::reference::test;
using nlohmann::json;

TEST_SUITE("src") {
TEST_CASE("reference BatchNormalization (inference) per channel") {
  // ch0 = [1, 3], ch1 = [2, 4]; (x - mean) / sqrt(var + eps) * scale + B.
  Tensor x = f32({1, 2, 1, 2}, {1, 3, 2, 4});
  Tensor scale = f32({2}, {1, 2}), b = f32({2}, {0, 1}), mean = f32({2}, {2, 3}), var = f32({2}, {1, 4});
  check_f32(run1("BatchNormalization", {{"epsilon", 0}}, {&x, &scale, &b, &mean, &var}, f32t({1, 2, 1, 2})),
            {1, 2, 1, 2}, {-1, 1, 0, 2});
  // Default epsilon 1e-5.
  Tensor y = run1("BatchNormalization", {}, {&x, &scale, &b, &mean, &var}, f32t({1, 2, 1, 2}));
  CHECK(y.data[0] == doctest::Approx(-1 / std::sqrt(1 + 1e-5)).epsilon(1e-7));
}

TEST_CASE("reference BatchNormalization rejects training mode") {
  Tensor x = f32({1, 1}, {1}), v = f32({1}, {1});
  CHECK_THROWS_WITH_AS(run1("BatchNormalization", {{"training_mode", 1}}, {&x, &v, &v, &v, &v}, f32t({1, 1})),
                       doctest::Contains("training_mode"), UserError);
  Tensor bad = f32({2}, {1, 1});
  CHECK_THROWS_WITH_AS(run1("BatchNormalization", {}, {&x, &bad, &v, &v, &v}, f32t({1, 1})),
                       doctest::Contains("scale must have shape [1]"), UserError);
}

TEST_CASE("reference LayerNormalization over the last axis with Mean and InvStdDev") {
  // Row 0: mean 2.5, variance 1.25; row 1: constant, so (x - mean) = 0 and Y = B.
  Tensor x = f32({2, 4}, {1, 2, 3, 4, 2, 2, 2, 2});
  Tensor scale = f32({4}, {1, 2, 1, 1}), b = f32({4}, {0, 0, 0, 1});
  std::vector<Tensor> out = reference::test::run_op("LayerNormalization", {{"epsilon", 0.25}}, {&x, &scale, &b},
                                                    {f32t({2, 4}), f32t({2, 1}), f32t({2, 1})});
  REQUIRE(out.size() == 3);
  // 1 / sqrt(1.25 + 0.25) = 0.816496580927726.
  double inv = 0.816496580927726;
  check_f32(out[0], {2, 4}, {-1.5 * inv, -0.5 * inv * 2, 0.5 * inv, 1.5 * inv + 1, 0, 0, 0, 1});
  check_f32(out[1], {2, 1}, {2.5, 2});
  check_f32(out[2], {2, 1}, {inv, 2});  // 1 / sqrt(0 + 0.25) = 2
}

TEST_CASE("reference LayerNormalization with axis 0 and no bias") {
  Tensor x = f32({2, 2}, {0, 2, 4, 6}), scale = f32({2, 2}, {1, 1, 1, 1});
  // Mean 3, variance (9 + 1 + 1 + 9) / 4 = 5, epsilon 0.
  double inv = 1 / std::sqrt(5.0);
  check_f32(run1("LayerNormalization", {{"axis", 0}, {"epsilon", 0}}, {&x, &scale}, f32t({2, 2})), {2, 2},
            {-3 * inv, -1 * inv, 1 * inv, 3 * inv});
}

TEST_CASE("reference InstanceNormalization per (n, c)") {
  Tensor x = f32({1, 2, 2}, {1, 3, 5, 5}), scale = f32({2}, {2, 3}), b = f32({2}, {0, 1});
  check_f32(run1("InstanceNormalization", {{"epsilon", 0.0}}, {&x, &scale, &b}, f32t({1, 2, 2})), {1, 2, 2},
            {-2, 2, NAN, NAN});
  // ch0: mean 2, variance 1; ch1 constant: 0 / sqrt(eps) * 3 + 1.
  check_f32(run1("InstanceNormalization", {}, {&x, &scale, &b}, f32t({1, 2, 2})), {1, 2, 2},
            {-2 / std::sqrt(1 + 1e-5), 2 / std::sqrt(1 + 1e-5), 1, 1});
}

TEST_CASE("reference Softmax rows and another axis") {
  Tensor x = f32({2, 3}, {1, 2, 3, 0, 0, 0});
  check_f32(run1("Softmax", {}, {&x}, f32t({2, 3})), {2, 3},
            {0.09003057317038046, 0.24472847105479764, 0.6652409557748219, 1.0 / 3, 1.0 / 3, 1.0 / 3});
  Tensor y = f32({2, 2}, {1, 1, 1, 3});
  check_f32(run1("Softmax", {{"axis", 0}}, {&y}, f32t({2, 2})), {2, 2},
            {0.5, 0.11920292202211755, 0.5, 0.8807970779778823});
  CHECK_THROWS_WITH_AS(run1("Softmax", {{"axis", 2}}, {&y}, f32t({2, 2})), doctest::Contains("axis 2 is out of range"),
                       UserError);
}

TEST_CASE("reference LogSoftmax is x - max - log(sum exp(x - max))") {
  Tensor x = f32({3}, {1, 2, 3});
  check_f32(run1("LogSoftmax", {}, {&x}, f32t({3})), {3},
            {-2.4076059644443806, -1.4076059644443804, -0.4076059644443803});
  Tensor big = f32({2}, {1000, 1000});
  check_f32(run1("LogSoftmax", {}, {&big}, f32t({2})), {2}, {-0.6931471805599453, -0.6931471805599453});
}

TEST_CASE("reference Hardmax: the first maximum along the axis") {
  Tensor x = f32({2, 3}, {1, 3, 3, 5, -1, 2});
  check_f32(run1("Hardmax", {}, {&x}, f32t({2, 3})), {2, 3}, {0, 1, 0, 1, 0, 0});
  check_f32(run1("Hardmax", {{"axis", 0}}, {&x}, f32t({2, 3})), {2, 3}, {0, 1, 1, 1, 0, 0});
  Tensor n = f32({4}, {1, NAN, 9, NAN});
  check_f32(run1("Hardmax", {}, {&n}, f32t({4})), {4}, {0, 1, 0, 0});
}

TEST_CASE("reference LpNormalization: L1 and L2, a zero norm gives 0") {
  Tensor x = f32({2, 2}, {3, 4, 0, 0});
  check_f32(run1("LpNormalization", {}, {&x}, f32t({2, 2})), {2, 2}, {0.6, 0.8, 0, 0});
  check_f32(run1("LpNormalization", {{"p", 1}}, {&x}, f32t({2, 2})), {2, 2}, {3.0 / 7, 4.0 / 7, 0, 0});
  check_f32(run1("LpNormalization", {{"axis", 0}, {"p", 1}}, {&x}, f32t({2, 2})), {2, 2}, {1, 1, 0, 0});
  CHECK_THROWS_WITH_AS(run1("LpNormalization", {{"p", 3}}, {&x}, f32t({2, 2})), doctest::Contains("p must be 1 or 2"),
                       UserError);
}

TEST_CASE("reference RMSNormalization over the trailing axes") {
  // Row [3, 4]: mean of squares 12.5; row [0, 1]: 0.5.
  Tensor x = f32({2, 2}, {3, 4, 0, 1}), s = f32({2}, {1, 2});
  double r0 = 1 / std::sqrt(12.5 + 1e-5), r1 = 1 / std::sqrt(0.5 + 1e-5);
  check_f32(run1("RMSNormalization", {}, {&x, &s}, f32t({2, 2})), {2, 2}, {3 * r0, 8 * r0, 0, 2 * r1});
  // axis 0: one row of all four values, mean of squares 6.5, scale broadcast.
  Tensor one = f32({1}, {2});
  double r = 1 / std::sqrt(6.5 + 0.5);
  check_f32(run1("RMSNormalization", {{"axis", 0}, {"epsilon", 0.5}}, {&x, &one}, f32t({2, 2})), {2, 2},
            {6 * r, 8 * r, 0, 2 * r});
  Tensor wrong = f32({3}, {1, 1, 1});
  CHECK_THROWS_WITH_AS(run1("RMSNormalization", {}, {&x, &wrong}, f32t({2, 2})), doctest::Contains("cannot be broadcast"),
                       UserError);
}
}
