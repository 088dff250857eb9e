// Shape inference, FLOPs and errors of MatMul, Gemm, Conv and ConvTranspose.
#include "tests/unit/graph/ir/ops/op_test_util.h"

using namespace optest;
using atl::UserError;

TEST_SUITE("graph") {

TEST_CASE("matmul: batched, broadcasting and 1-D operands") {
  CHECK(Op("MatMul", {T({2, 3}), T({3, 4})}).type() == "f32[2, 4]");
  CHECK(Op("MatMul", {T({5, 2, 3}), T({3, 4})}).type() == "f32[5, 2, 4]");
  CHECK(Op("MatMul", {T({5, 1, 2, 3}), T({7, 3, 4})}).type() == "f32[5, 7, 2, 4]");
  CHECK(Op("MatMul", {T({3}), T({3, 4})}).type() == "f32[4]");
  CHECK(Op("MatMul", {T({2, 3}), T({3})}).type() == "f32[2]");
  CHECK(Op("MatMul", {T({3}), T({3})}).type() == "f32[]");
  CHECK(Op("MatMul", {T({6, 3}), T({5, 3, 2})}).type() == "f32[5, 6, 2]");
  CHECK(Op("MatMul", {T({S("B"), S("S"), 64}), T({64, 32})}).type() == "f32[B, S, 32]");
  CHECK(Op("MatMul", {T({2, 3}), T({3, 4})}).pattern() == atl::PatternKind::OutFusable);
}

TEST_CASE("matmul: errors and flops") {
  CHECK_THROWS_WITH_AS(Op("MatMul", {T({2, 64}), T({32, 4})}).infer(),
                       doctest::Contains("MatMul: A f32[2, 64] has 64 columns but B f32[32, 4] has 32 rows"), UserError);
  CHECK_THROWS_WITH_AS(Op("MatMul", {T({2, 2, 3}), T({4, 3, 4})}).infer(), doctest::Contains("do not broadcast"),
                       UserError);
  CHECK_THROWS_WITH_AS(Op("MatMul", {T({S("K"), 3}), T({2, S("K")})}).infer(), doctest::Contains("3 columns"),
                       UserError);
  CHECK(Op("MatMul", {T({5, 2, 3}), T({3, 4})}).flops() == 2 * 5 * 2 * 4 * 3);
  CHECK(Op("MatMul", {T({3}), T({3})}).flops() == 6);
}

TEST_CASE("gemm: transposes, bias broadcasting, flops") {
  CHECK(Op("Gemm", {T({4, 3}), T({3, 5})}).type() == "f32[4, 5]");
  CHECK(Op("Gemm", {T({3, 4}), T({5, 3}), T({5})}, {{"transA", 1}, {"transB", 1}}).type() == "f32[4, 5]");
  CHECK(Op("Gemm", {T({4, 3}), T({3, 5}), T({4, 1})}).type() == "f32[4, 5]");
  CHECK_THROWS_WITH_AS(Op("Gemm", {T({4, 3}), T({3, 5}), T({4})}).infer(),
                       doctest::Contains("C f32[4] does not broadcast to the result shape [4, 5]"), UserError);
  CHECK_THROWS_WITH_AS(Op("Gemm", {T({4, 3}), T({4, 5})}).infer(), doctest::Contains("has 3 columns but B has 4 rows"),
                       UserError);
  CHECK(Op("Gemm", {T({4, 3}), T({3, 5})}).flops() == 120);
  CHECK(Op("Gemm", {T({4, 3}), T({3, 5}), T({5})}).flops() == 140);
  CHECK(Op("Gemm", {T({4, 3}), T({3, 5}), T({5})}, {{"alpha", 2.0}, {"beta", 0.5}}).flops() == 120 + 20 + 40);
}

TEST_CASE("conv: pads, strides, dilations, groups") {
  CHECK(Op("Conv", {T({1, 3, 32, 32}), T({8, 3, 3, 3})}).type() == "f32[1, 8, 30, 30]");
  CHECK(Op("Conv", {T({1, 3, 32, 32}), T({8, 3, 3, 3}), T({8})}, {{"pads", {1, 1, 1, 1}}}).type() == "f32[1, 8, 32, 32]");
  CHECK(Op("Conv", {T({1, 3, 32, 32}), T({8, 3, 3, 3})}, {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}).type() ==
        "f32[1, 8, 16, 16]");
  CHECK(Op("Conv", {T({1, 3, 32, 32}), T({8, 3, 3, 3})}, {{"dilations", {2, 2}}}).type() == "f32[1, 8, 28, 28]");
  CHECK(Op("Conv", {T({2, 32, 14, 14}), T({32, 1, 3, 3})}, {{"group", 32}, {"pads", {1, 1, 1, 1}}}).type() ==
        "f32[2, 32, 14, 14]");
  CHECK(Op("Conv", {T({1, 4, 10}), T({6, 2, 3})}, {{"group", 2}}).type() == "f32[1, 6, 8]");
  CHECK(Op("Conv", {T({1, 2, 5, 6, 7}), T({4, 2, 3, 3, 3})}).type() == "f32[1, 4, 3, 4, 5]");
  CHECK(Op("Conv", {T({S("N"), 3, 8, 8}), T({4, 3, 3, 3})}).type() == "f32[N, 4, 6, 6]");
  CHECK(Op("Conv", {T({1, 3, 8, 8}), T({4, 3, 3, 3})}, {{"kernel_shape", {3, 3}}}).type() == "f32[1, 4, 6, 6]");
}

TEST_CASE("conv: auto_pad") {
  CHECK(Op("Conv", {T({1, 1, 7, 7}), T({1, 1, 3, 3})}, {{"auto_pad", "SAME_UPPER"}, {"strides", {2, 2}}}).type() ==
        "f32[1, 1, 4, 4]");
  CHECK(Op("Conv", {T({1, 1, 8, 8}), T({1, 1, 3, 3})}, {{"auto_pad", "SAME_LOWER"}}).type() == "f32[1, 1, 8, 8]");
  CHECK(Op("Conv", {T({1, 1, 8, 8}), T({1, 1, 3, 3})}, {{"auto_pad", "VALID"}, {"strides", {2, 2}}}).type() ==
        "f32[1, 1, 3, 3]");
  // SAME_UPPER puts the odd padding at the end, SAME_LOWER at the beginning.
  std::string upper = Op("Conv", {T({1, 1, 6}), T({1, 1, 2})}, {{"auto_pad", "SAME_UPPER"}}).define().text;
  std::string lower = Op("Conv", {T({1, 1, 6}), T({1, 1, 2})}, {{"auto_pad", "SAME_LOWER"}}).define().text;
  CHECK(upper.find("X(n, c, w + kw)") != std::string::npos);
  CHECK(lower.find("X(n, c, w + kw - 1)") != std::string::npos);
}

TEST_CASE("conv: errors name the mismatch") {
  CHECK_THROWS_WITH_AS(Op("Conv", {T({1, 64, 8, 8}), T({16, 32, 3, 3})}).infer(),
                       doctest::Contains("Conv: input has 64 channels but weight expects 32 x group 1"), UserError);
  CHECK_THROWS_WITH_AS(Op("Conv", {T({1, 3, 8, 8}), T({4, 3, 3, 3}), T({5})}).infer(),
                       doctest::Contains("bias B f32[5] must have shape [4]"), UserError);
  CHECK_THROWS_WITH_AS(Op("Conv", {T({1, 3, S("H"), 8}), T({4, 3, 3, 3})}).infer(),
                       doctest::Contains("dimension 'H' is symbolic"), UserError);
  CHECK_THROWS_WITH_AS(Op("Conv", {T({1, 3, 2, 2}), T({4, 3, 3, 3})}).infer(),
                       doctest::Contains("larger than the padded input"), UserError);
  CHECK_THROWS_WITH_AS(Op("Conv", {T({1, 3, 8, 8}), T({4, 3, 3, 3})}, {{"pads", {1, 1}}}).infer(),
                       doctest::Contains("'pads' has 2 values, expected 4"), UserError);
  CHECK_THROWS_WITH_AS(Op("Conv", {T({1, 3, 8, 8}), T({4, 3, 3, 3})}, {{"auto_pad", "SAME"}}).infer(),
                       doctest::Contains("auto_pad must be"), UserError);
  CHECK_THROWS_WITH_AS(Op("Conv", {T({1, 3, 8, 8}), T({4, 3, 3, 3})}, {{"kernel_shape", {2, 2}}}).infer(),
                       doctest::Contains("kernel_shape 2x2 does not match"), UserError);
  CHECK_THROWS_WITH_AS(Op("Conv", {T({1, 3, 8, 8}), T({4, 3, 3, 3})}, {{"stride", {2, 2}}}).infer(),
                       doctest::Contains("unknown attribute 'stride'"), UserError);
}

TEST_CASE("conv: flops") {
  // 2 * N * M * OH * OW * (C / group) * KH * KW + bias
  CHECK(Op("Conv", {T({1, 3, 8, 8}), T({4, 3, 3, 3})}).flops() == 2 * 4 * 36 * 27);
  CHECK(Op("Conv", {T({1, 3, 8, 8}), T({4, 3, 3, 3}), T({4})}).flops() == 2 * 4 * 36 * 27 + 4 * 36);
  CHECK(Op("Conv", {T({2, 8, 4, 4}), T({8, 1, 3, 3})}, {{"group", 8}}).flops() == 2 * 2 * 8 * 4 * 9);
}

TEST_CASE("conv transpose: strides, pads, output_padding, output_shape, groups") {
  CHECK(Op("ConvTranspose", {T({1, 2, 3, 3}), T({2, 4, 3, 3})}).type() == "f32[1, 4, 5, 5]");
  CHECK(Op("ConvTranspose", {T({1, 2, 3, 3}), T({2, 4, 3, 3})}, {{"strides", {2, 2}}}).type() == "f32[1, 4, 7, 7]");
  CHECK(Op("ConvTranspose", {T({1, 2, 3, 3}), T({2, 4, 3, 3})},
           {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"output_padding", {1, 1}}})
            .type() == "f32[1, 4, 6, 6]");
  CHECK(Op("ConvTranspose", {T({1, 2, 3, 3}), T({2, 4, 3, 3})}, {{"strides", {2, 2}}, {"output_shape", {6, 6}}})
            .type() == "f32[1, 4, 6, 6]");
  CHECK(Op("ConvTranspose", {T({1, 2, 3, 3}), T({2, 4, 3, 3})}, {{"strides", {2, 2}}, {"auto_pad", "SAME_UPPER"}})
            .type() == "f32[1, 4, 6, 6]");
  CHECK(Op("ConvTranspose", {T({1, 4, 5}), T({4, 3, 2})}, {{"group", 2}}).type() == "f32[1, 6, 6]");
  CHECK(Op("ConvTranspose", {T({S("N"), 2, 3, 3}), T({2, 4, 3, 3})}, {{"dilations", {2, 2}}}).type() ==
        "f32[N, 4, 7, 7]");
  CHECK_THROWS_WITH_AS(Op("ConvTranspose", {T({1, 3, 3, 3}), T({2, 4, 3, 3})}).infer(),
                       doctest::Contains("input has 3 channels but weight f32[2, 4, 3, 3] expects 2"), UserError);
  CHECK_THROWS_WITH_AS(Op("ConvTranspose", {T({1, 2, 3, 3}), T({2, 4, 3, 3})}, {{"output_padding", {2, 2}}}).infer(),
                       doctest::Contains("output_padding 2 must be"), UserError);
  CHECK(Op("ConvTranspose", {T({1, 2, 3, 3}), T({2, 4, 3, 3})}, {{"output_shape", {9, 9}}}).type() == "f32[1, 4, 9, 9]");
  CHECK_THROWS_WITH_AS(Op("ConvTranspose", {T({1, 2, 3, 3}), T({2, 4, 3, 3})}, {{"output_shape", {9}}}).infer(),
                       doctest::Contains("output_shape needs 2 spatial sizes"), UserError);
  // 2 * N * C * H * W * (M / group) * KH * KW
  CHECK(Op("ConvTranspose", {T({1, 2, 3, 3}), T({2, 4, 3, 3})}).flops() == 2 * 2 * 9 * 4 * 9);
}

}  // TEST_SUITE
