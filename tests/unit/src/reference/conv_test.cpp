// Reference Conv and ConvTranspose: padding, strides, dilations, groups,
// auto_pad, output_padding and output_shape, worked by hand.
#include "tests/unit/src/reference/reference_test_util.h"

using namespace atl;
using namespace atl::reference::test;
using nlohmann::json;

TEST_SUITE("src") {
// X = 1..16 as a 4x4 image:
//    1  2  3  4
//    5  6  7  8
//    9 10 11 12
//   13 14 15 16
TEST_CASE("reference Conv 1x1x4x4, 3x3 ones, pads 1, stride 2, bias") {
  Tensor x = iota({1, 1, 4, 4}, 1), w = f32({1, 1, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1}), b = f32({1}, {1});
  json attrs = {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}};
  // Windows centred on (0,0), (0,2), (2,0), (2,2): 1+2+5+6, 2+3+4+6+7+8, 5+6+9+10+13+14, 6+7+8+10+...+16.
  check_f32(run1("Conv", attrs, {&x, &w, &b}, f32t({1, 1, 2, 2})), {1, 1, 2, 2}, {15, 31, 58, 100});
}

TEST_CASE("reference Conv is a correlation (the kernel is not flipped)") {
  Tensor x = iota({1, 1, 4, 4}, 1), w = f32({1, 1, 3, 3}, {1, 0, 0, 0, 0, 0, 0, 0, 2});
  json attrs = {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}, {"kernel_shape", {3, 3}}};
  // out(i,j) = X[2i-1][2j-1] + 2 X[2i+1][2j+1].
  check_f32(run1("Conv", attrs, {&x, &w}, f32t({1, 1, 2, 2})), {1, 1, 2, 2}, {12, 16, 28, 38});
}

TEST_CASE("reference Conv sums input channels; group=C is depthwise") {
  Tensor x = f32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor w1 = f32({1, 2, 1, 1}, {1, 1});
  check_f32(run1("Conv", {}, {&x, &w1}, f32t({1, 1, 2, 2})), {1, 1, 2, 2}, {6, 8, 10, 12});
  Tensor w2 = f32({2, 1, 1, 1}, {2, 3});
  check_f32(run1("Conv", {{"group", 2}}, {&x, &w2}, f32t({1, 2, 2, 2})), {1, 2, 2, 2},
            {2, 4, 6, 8, 15, 18, 21, 24});
  CHECK_THROWS_WITH_AS(run1("Conv", {{"group", 3}}, {&x, &w2}, f32t({1, 2, 2, 2})), doctest::Contains("group"),
                       UserError);
}

TEST_CASE("reference Conv 1-D with dilation") {
  Tensor x = f32({1, 1, 5}, {1, 2, 3, 4, 5}), w = f32({1, 1, 2}, {1, 1});
  check_f32(run1("Conv", {{"dilations", {2}}}, {&x, &w}, f32t({1, 1, 3})), {1, 1, 3}, {4, 6, 8});
}

TEST_CASE("reference Conv auto_pad SAME_UPPER, SAME_LOWER and VALID") {
  Tensor x = f32({1, 1, 4}, {1, 2, 3, 4}), w = f32({1, 1, 2}, {1, 10});
  // One pad in total: at the end (UPPER) or at the beginning (LOWER).
  check_f32(run1("Conv", {{"auto_pad", "SAME_UPPER"}}, {&x, &w}, f32t({1, 1, 4})), {1, 1, 4}, {21, 32, 43, 4});
  check_f32(run1("Conv", {{"auto_pad", "SAME_LOWER"}}, {&x, &w}, f32t({1, 1, 4})), {1, 1, 4}, {10, 21, 32, 43});
  check_f32(run1("Conv", {{"auto_pad", "VALID"}, {"pads", {1, 1}}}, {&x, &w}, f32t({1, 1, 3})), {1, 1, 3},
            {21, 32, 43});
  // Stride 2: ceil(4/2) = 2 outputs, total pad (2-1)*2 + 2 - 4 = 0.
  check_f32(run1("Conv", {{"auto_pad", "SAME_UPPER"}, {"strides", {2}}}, {&x, &w}, f32t({1, 1, 2})), {1, 1, 2},
            {21, 43});
}

TEST_CASE("reference Conv 3-D with bias and asymmetric pads") {
  Tensor x = iota({1, 1, 2, 2, 2}, 1), w = f32({1, 1, 2, 2, 2}, {1, 1, 1, 1, 1, 1, 1, 1}), b = f32({1}, {-6});
  check_f32(run1("Conv", {}, {&x, &w, &b}, f32t({1, 1, 1, 1, 1})), {1, 1, 1, 1, 1}, {30});
  // Pad one at the end of the last dim only: the second window sees x[.., .., 1] = 2+4+6+8.
  json attrs = {{"pads", {0, 0, 0, 0, 0, 1}}};
  check_f32(run1("Conv", attrs, {&x, &w}, f32t({1, 1, 1, 1, 2})), {1, 1, 1, 1, 2}, {36, 20});
}

TEST_CASE("reference Conv rejects bad operands") {
  Tensor x = iota({1, 1, 2, 2, 2, 2}), w = iota({1, 1, 1, 1, 1, 1});
  CHECK_THROWS_WITH_AS(run1("Conv", {}, {&x, &w}, f32t({1, 1, 2, 2, 2, 2})),
                       doctest::Contains("1 to 3 spatial dimensions"), UserError);
  Tensor x2 = iota({1, 1, 3, 3}), w2 = iota({1, 1, 2, 2});
  CHECK_THROWS_WITH_AS(run1("Conv", {{"strides", {1}}}, {&x2, &w2}, f32t({1, 1, 2, 2})), doctest::Contains("strides"),
                       UserError);
  CHECK_THROWS_WITH_AS(run1("Conv", {{"kernel_shape", {3, 3}}}, {&x2, &w2}, f32t({1, 1, 2, 2})),
                       doctest::Contains("kernel_shape"), UserError);
}

TEST_CASE("reference ConvTranspose 1-D, stride 1 and 2") {
  Tensor x = f32({1, 1, 3}, {1, 2, 3}), w = f32({1, 1, 3}, {1, 1, 1});
  check_f32(run1("ConvTranspose", {}, {&x, &w}, f32t({1, 1, 5})), {1, 1, 5}, {1, 3, 6, 5, 3});
  // Stride 2: copies of the kernel at 0, 2, 4 scaled by 1, 2, 3.
  check_f32(run1("ConvTranspose", {{"strides", {2}}}, {&x, &w}, f32t({1, 1, 7})), {1, 1, 7}, {1, 1, 3, 2, 5, 3, 3});
}

TEST_CASE("reference ConvTranspose pads, output_padding and output_shape") {
  Tensor x = f32({1, 1, 3}, {1, 2, 3}), w = f32({1, 1, 3}, {1, 1, 1});
  check_f32(run1("ConvTranspose", {{"strides", {2}}, {"pads", {1, 1}}}, {&x, &w}, f32t({1, 1, 5})), {1, 1, 5},
            {1, 3, 2, 5, 3});
  check_f32(run1("ConvTranspose", {{"strides", {2}}, {"output_padding", {1}}}, {&x, &w}, f32t({1, 1, 8})), {1, 1, 8},
            {1, 1, 3, 2, 5, 3, 3, 0});
  // output_shape 6 of a full 7: the odd pad goes to the beginning (NOTSET).
  check_f32(run1("ConvTranspose", {{"strides", {2}}, {"output_shape", {6}}}, {&x, &w}, f32t({1, 1, 6})), {1, 1, 6},
            {1, 3, 2, 5, 3, 3});
  // SAME_*: output = input * stride = 6; UPPER pads the end, LOWER the beginning.
  check_f32(run1("ConvTranspose", {{"strides", {2}}, {"auto_pad", "SAME_UPPER"}}, {&x, &w}, f32t({1, 1, 6})),
            {1, 1, 6}, {1, 1, 3, 2, 5, 3});
  check_f32(run1("ConvTranspose", {{"strides", {2}}, {"auto_pad", "SAME_LOWER"}}, {&x, &w}, f32t({1, 1, 6})),
            {1, 1, 6}, {1, 3, 2, 5, 3, 3});
}

TEST_CASE("reference ConvTranspose 2-D with groups, bias and channel sums") {
  Tensor x = f32({1, 2, 1, 1}, {1, 2});
  Tensor w = f32({2, 1, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), b = f32({2}, {10, 20});
  check_f32(run1("ConvTranspose", {{"group", 2}}, {&x, &w, &b}, f32t({1, 2, 2, 2})), {1, 2, 2, 2},
            {11, 12, 13, 14, 30, 32, 34, 36});
  Tensor w3 = f32({2, 3, 1, 1}, {1, 2, 3, 4, 5, 6});
  check_f32(run1("ConvTranspose", {}, {&x, &w3}, f32t({1, 3, 1, 1})), {1, 3, 1, 1}, {9, 12, 15});
  // Dilation 2 spreads a 2-tap kernel: positions 0 and 2.
  Tensor x1 = f32({1, 1, 1}, {3}), w1 = f32({1, 1, 2}, {1, 2});
  check_f32(run1("ConvTranspose", {{"dilations", {2}}}, {&x1, &w1}, f32t({1, 1, 3})), {1, 1, 3}, {3, 0, 6});
}
}
