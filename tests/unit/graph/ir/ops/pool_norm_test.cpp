// Shape inference, FLOPs and errors of the pools and normalizations.
#include "tests/unit/graph/ir/ops/op_test_util.h"

using namespace optest;
using atl::UserError;

TEST_SUITE("graph") {

TEST_CASE("pool: kernel, strides, pads, dilations") {
  CHECK(Op("MaxPool", {T({1, 3, 8, 8})}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}).type() == "f32[1, 3, 4, 4]");
  CHECK(Op("MaxPool", {T({1, 3, 8, 8})}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}).type() ==
        "f32[1, 3, 8, 8]");
  CHECK(Op("MaxPool", {T({1, 3, 8, 8})}, {{"kernel_shape", {2, 2}}, {"dilations", {2, 2}}}).type() ==
        "f32[1, 3, 6, 6]");
  CHECK(Op("AveragePool", {T({S("N"), 3, 9})}, {{"kernel_shape", {3}}, {"strides", {3}}}).type() == "f32[N, 3, 3]");
  CHECK(Op("MaxPool", {T({1, 1, 4, 4, 4})}, {{"kernel_shape", {2, 2, 2}}}).type() == "f32[1, 1, 3, 3, 3]");
  CHECK(Op("MaxPool", {T({1, 1, 4, 4}, DType::I8)}, {{"kernel_shape", {2, 2}}}).type() == "i8[1, 1, 3, 3]");
}

TEST_CASE("pool: ceil_mode") {
  atl::SymShape x = {1, 1, 7, 7};
  CHECK(Op("MaxPool", {T(x)}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}).type() == "f32[1, 1, 3, 3]");
  CHECK(Op("MaxPool", {T(x)}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}, {"ceil_mode", 1}}).type() ==
        "f32[1, 1, 4, 4]");
  // The last window must start inside the input or the begin pad.
  CHECK(Op("AveragePool", {T({1, 1, 6})}, {{"kernel_shape", {2}}, {"strides", {2}}, {"pads", {1, 1}}, {"ceil_mode", 1}})
            .type() == "f32[1, 1, 4]");
  CHECK(Op("AveragePool", {T({1, 1, 5})}, {{"kernel_shape", {2}}, {"strides", {2}}, {"pads", {1, 1}}, {"ceil_mode", 1}})
            .type() == "f32[1, 1, 3]");
}

TEST_CASE("pool: auto_pad") {
  CHECK(Op("MaxPool", {T({1, 1, 7, 7})}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"auto_pad", "SAME_UPPER"}})
            .type() == "f32[1, 1, 4, 4]");
  CHECK(Op("AveragePool", {T({1, 1, 7, 7})}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"auto_pad", "VALID"}})
            .type() == "f32[1, 1, 3, 3]");
}

TEST_CASE("pool: errors") {
  CHECK_THROWS_WITH_AS(Op("MaxPool", {T({1, 3, 8, 8})}).infer(), doctest::Contains("'kernel_shape' is required"),
                       UserError);
  CHECK_THROWS_WITH_AS(Op("MaxPool", {T({1, 3, 8, 8})}, {{"kernel_shape", {2, 2}}}, 2).infer(),
                       doctest::Contains("MaxPool: the optional Indices output is not supported"), UserError);
  CHECK_THROWS_WITH_AS(Op("MaxPool", {T({8, 8})}, {{"kernel_shape", {2, 2}}}).infer(),
                       doctest::Contains("X must be N x C x D1"), UserError);
  CHECK_THROWS_WITH_AS(Op("AveragePool", {T({1, 3, 8, 8}, DType::I32)}, {{"kernel_shape", {2, 2}}}).infer(),
                       doctest::Contains("must be a float tensor"), UserError);
  CHECK_THROWS_WITH_AS(Op("MaxPool", {T({1, 3, 8, 8})}, {{"kernel_shape", {2, 2}}, {"strides", {0, 1}}}).infer(),
                       doctest::Contains("'strides' must be positive"), UserError);
  CHECK_THROWS_WITH_AS(Op("MaxPool", {T({1, 3, 8, 8})}, {{"kernel_shape", {2, 2}}, {"pads", {2, 0, 0, 0}}}).infer(),
                       doctest::Contains("must be smaller than the window extent 2"), UserError);
}

TEST_CASE("pool: LpPool") {
  CHECK(Op("LpPool", {T({1, 2, 5, 5})}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}).type() == "f32[1, 2, 5, 5]");
  CHECK(Op("LpPool", {T({1, 1, 4})}, {{"kernel_shape", {2}}, {"strides", {2}}}).define().text ==
        "Y(n, c, w) +=! X(n, c, w * 2 + kw) * X(n, c, w * 2 + kw) where kw in 0:2\nY(n, c, w) = sqrt(Y(n, c, w))");
  CHECK(Op("LpPool", {T({1, 1, 4})}, {{"kernel_shape", {2}}, {"p", 1}, {"pads", {1, 0}}}).define().text ==
        "Y(n, c, w) +=! abs(guard(X(n, c, w + kw - 1), 0)) where kw in 0:2\nY(n, c, w) = Y(n, c, w)");
  CHECK(Op("LpPool", {T({1, 1, 4})}, {{"kernel_shape", {2}}, {"p", 3}}).define().text ==
        "Y(n, c, w) +=! pow(abs(X(n, c, w + kw)), 3) where kw in 0:2\nY(n, c, w) = pow(Y(n, c, w), 0.3333333333333333)");
  CHECK(Op("LpPool", {T({1, 1, 4, 4})}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}).flops() == 36);
  CHECK_THROWS_WITH_AS(Op("LpPool", {T({1, 1, 4})}, {{"kernel_shape", {2}}, {"p", 0}}).infer(),
                       doctest::Contains("p must be a positive integer, got 0"), UserError);
  CHECK_THROWS_WITH_AS(Op("LpPool", {T({1, 1, 4}, DType::I32)}, {{"kernel_shape", {2}}}).infer(),
                       doctest::Contains("LpPool"), UserError);
}

TEST_CASE("pool: global pools and flops") {
  CHECK(Op("GlobalAveragePool", {T({S("N"), 64, 7, 7})}).type() == "f32[N, 64, 1, 1]");
  CHECK(Op("GlobalMaxPool", {T({2, 8, 5})}).type() == "f32[2, 8, 1]");
  CHECK(Op("GlobalAveragePool", {T({1, 2, 4, 4})}).flops() == 32 + 2);
  CHECK(Op("MaxPool", {T({1, 1, 4, 4})}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}).flops() == 16);
  CHECK(Op("AveragePool", {T({1, 1, 4, 4})}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}).flops() == 20);
  CHECK(Op("MaxPool", {T({1, 1, 4, 4})}, {{"kernel_shape", {2, 2}}}).pattern() == atl::PatternKind::Reduction);
}

TEST_CASE("normalization: batch norm") {
  std::vector<std::optional<atl::TensorType>> in = {T({S("N"), 4, 5, 5}), T({4}), T({4}), T({4}), T({4})};
  CHECK(Op("BatchNormalization", in).type() == "f32[N, 4, 5, 5]");
  CHECK(Op("BatchNormalization", in).pattern() == atl::PatternKind::Broadcast);
  in[3] = T({3});
  CHECK_THROWS_WITH_AS(Op("BatchNormalization", in).infer(),
                       doctest::Contains("input_mean f32[3] must have shape [4] (one per channel)"), UserError);
  in[3] = T({4});
  CHECK_THROWS_WITH_AS(Op("BatchNormalization", in, {{"training_mode", 1}}).infer(),
                       doctest::Contains("training_mode is not supported"), UserError);
  CHECK(Op("BatchNormalization", {T({2, 4}), T({4}), T({4}), T({4}), T({4})}).flops() == 6 * 8);
}

TEST_CASE("normalization: layer norm axis and optional outputs") {
  auto t = Op("LayerNormalization", {T({S("B"), 6, 8}), T({8}), T({8})}, json::object(), 3).infer();
  REQUIRE(t.size() == 3);
  CHECK(t[0].str() == "f32[B, 6, 8]");
  CHECK(t[1].str() == "f32[B, 6, 1]");
  CHECK(t[2].str() == "f32[B, 6, 1]");
  auto u = Op("LayerNormalization", {T({2, 6, 8}, DType::F16), T({6, 8}, DType::F16)}, {{"axis", 1}}, 2).infer();
  CHECK(u[0].str() == "f16[2, 6, 8]");
  CHECK(u[1].str() == "f32[2, 1, 1]");
  CHECK_THROWS_WITH_AS(Op("LayerNormalization", {T({2, 6, 8}), T({6})}).infer(),
                       doctest::Contains("Scale f32[6] does not broadcast to the normalized shape [8]"), UserError);
  CHECK_THROWS_WITH_AS(Op("LayerNormalization", {T({2, 6, 8}), T({8})}, {{"axis", 3}}).infer(),
                       doctest::Contains("axis 3 is out of range for rank 3"), UserError);
  // per element: mean 1, variance 3, normalise 3, bias 1; per row 5
  CHECK(Op("LayerNormalization", {T({2, 8}), T({8}), T({8})}).flops() == 16 * 8 + 2 * 5);
}

TEST_CASE("normalization: instance norm, softmax, log softmax") {
  CHECK(Op("InstanceNormalization", {T({2, 3, 4, 4}), T({3}), T({3})}).type() == "f32[2, 3, 4, 4]");
  CHECK_THROWS_WITH_AS(Op("InstanceNormalization", {T({2, 3, 4, 4}), T({4}), T({3})}).infer(),
                       doctest::Contains("scale f32[4] must have shape [3]"), UserError);
  CHECK(Op("Softmax", {T({S("N"), 10})}).type() == "f32[N, 10]");
  CHECK(Op("LogSoftmax", {T({2, 10})}, {{"axis", -2}}).type() == "f32[2, 10]");
  CHECK_THROWS_WITH_AS(Op("Softmax", {T({2, 10})}, {{"axis", 2}}).infer(), doctest::Contains("axis 2 is out of range"),
                       UserError);
  CHECK_THROWS_WITH_AS(Op("Softmax", {T({2, 10}, DType::I32)}).infer(), doctest::Contains("must be a float tensor"),
                       UserError);
  CHECK(Op("Softmax", {T({2, 10})}).flops() == 100);
  CHECK(Op("LogSoftmax", {T({2, 10})}).flops() == 122);
  CHECK(Op("Softmax", {T({2, 10})}).pattern() == atl::PatternKind::Reduction);
}

TEST_CASE("normalization: Hardmax and LpNormalization along one axis") {
  CHECK(Op("Hardmax", {T({2, 3, 4})}).type() == "f32[2, 3, 4]");
  CHECK(Op("Hardmax", {T({S("N"), 5}, DType::F16)}, {{"axis", 0}}).type() == "f16[N, 5]");
  CHECK(Op("Hardmax", {T({2, 5})}).define().text ==
        "mx(i0) max=! input(i0, i1)\n"
        "first(i0) min=! (input(i0, i1) == mx(i0) || input(i0, i1) != input(i0, i1) ? i1 : (5 - 1))\n"
        "output(i0, i1) = i1 == first(i0) ? 1 : 0");
  CHECK_THROWS_WITH_AS(Op("Hardmax", {T({3}, DType::I32)}).infer(), doctest::Contains("Hardmax"), UserError);
  CHECK_THROWS_WITH_AS(Op("Hardmax", {T({3})}, {{"axis", 1}}).infer(), doctest::Contains("out of range"), UserError);
  CHECK(Op("LpNormalization", {T({2, 3})}).type() == "f32[2, 3]");
  CHECK(Op("LpNormalization", {T({2, 3})}, {{"axis", 0}, {"p", 1}}).define().text ==
        "nrm(i1) +=! abs(input(i0, i1))\noutput(i0, i1) = nrm(i1) == 0 ? 0 : input(i0, i1) / nrm(i1)");
  CHECK(Op("LpNormalization", {T({4})}).define().text ==
        "nrm() +=! input(i0) * input(i0)\nnrm() = sqrt(nrm())\noutput(i0) = nrm() == 0 ? 0 : input(i0) / nrm()");
  CHECK_THROWS_WITH_AS(Op("LpNormalization", {T({3})}, {{"p", 3}}).infer(), doctest::Contains("p must be 1 or 2, got 3"),
                       UserError);
  CHECK(Op("LpNormalization", {T({2, 5})}).flops() == 30);
}

TEST_CASE("normalization: RMS norm axis, scale broadcasting, errors") {
  CHECK(Op("RMSNormalization", {T({2, 3, 4}), T({4})}).type() == "f32[2, 3, 4]");
  CHECK(Op("RMSNormalization", {T({S("N"), 3, 4}, DType::F16), T({3, 1}, DType::F16)}, {{"axis", 1}}).type() ==
        "f16[N, 3, 4]");
  CHECK(Op("RMSNormalization", {T({2, 8}), T({8})}).define().text ==
        "ms(i0) +=! X(i0, i1) * X(i0, i1)\nrstd(i0) = 1 / sqrt(ms(i0) / 8 + 0.00001)\nY(i0, i1) = X(i0, i1) * rstd(i0) * scale(i1)");
  CHECK(Op("RMSNormalization", {T({2, 8}), T({8})}).pattern() == atl::PatternKind::Reduction);
  CHECK(Op("RMSNormalization", {T({2, 8}), T({8})}).flops() == 16 * 4 + 2 * 4);
  CHECK_THROWS_WITH_AS(Op("RMSNormalization", {T({2, 3, 4}), T({3})}).infer(),
                       doctest::Contains("scale f32[3] does not broadcast to the normalized shape [4] (axis 2)"),
                       UserError);
  CHECK_THROWS_WITH_AS(Op("RMSNormalization", {T({2, 4}), T({4})}, {{"stash_type", 10}}).infer(),
                       doctest::Contains("stash_type must be 1"), UserError);
  CHECK_THROWS_WITH_AS(Op("RMSNormalization", {T({2, 4}, DType::I32), T({4})}).infer(),
                       doctest::Contains("must be a float tensor"), UserError);
  CHECK_THROWS_WITH_AS(Op("RMSNormalization", {T({2, 4}), T({4})}, {{"axis", 2}}).infer(), doctest::Contains("axis"),
                       UserError);
}

}  // TEST_SUITE
