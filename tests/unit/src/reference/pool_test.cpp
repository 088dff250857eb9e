// Reference MaxPool, AveragePool (ceil_mode, count_include_pad, auto_pad,
// dilations) and the global pools, worked by hand.
#include "tests/unit/src/reference/reference_test_util.h"

using namespace atl;
using namespace atl::reference::test;
using nlohmann::json;

TEST_SUITE("src") {
TEST_CASE("reference MaxPool 2x2 stride 2") {
  Tensor x = iota({1, 1, 4, 4}, 1);
  check_f32(run1("MaxPool", {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}, {&x}, f32t({1, 1, 2, 2})), {1, 1, 2, 2},
            {6, 8, 14, 16});
}

TEST_CASE("reference MaxPool ceil_mode adds a partial last window") {
  // X[r][c] = 5r + c + 1; windows rows {0,1}, {2,3}, {4} and the same columns.
  Tensor x = iota({1, 1, 5, 5}, 1);
  json attrs = {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}, {"ceil_mode", 1}};
  check_f32(run1("MaxPool", attrs, {&x}, f32t({1, 1, 3, 3})), {1, 1, 3, 3}, {7, 9, 10, 17, 19, 20, 22, 24, 25});
  attrs["ceil_mode"] = 0;
  check_f32(run1("MaxPool", attrs, {&x}, f32t({1, 1, 2, 2})), {1, 1, 2, 2}, {7, 9, 17, 19});
}

TEST_CASE("reference MaxPool ceil_mode drops a window that starts in the end padding") {
  // in 4, pads [0,1], k 2, s 2: ceil((4+1-2)/2)+1 = 3, but window 3 would start at 4 (padding): 2 outputs.
  Tensor x = f32({1, 1, 4}, {1, 2, 3, 4});
  json attrs = {{"kernel_shape", {2}}, {"strides", {2}}, {"pads", {0, 1}}, {"ceil_mode", 1}};
  check_f32(run1("MaxPool", attrs, {&x}, f32t({1, 1, 2})), {1, 1, 2}, {2, 4});
}

TEST_CASE("reference MaxPool padding never wins and dilations skip") {
  Tensor x = f32({1, 1, 3}, {-1, -2, -3});
  check_f32(run1("MaxPool", {{"kernel_shape", {2}}, {"pads", {1, 1}}}, {&x}, f32t({1, 1, 4})), {1, 1, 4},
            {-1, -1, -2, -3});
  Tensor y = f32({1, 1, 5}, {1, 5, 2, 4, 3});
  // Windows {0,2}, {1,3}, {2,4}.
  check_f32(run1("MaxPool", {{"kernel_shape", {2}}, {"dilations", {2}}}, {&y}, f32t({1, 1, 3})), {1, 1, 3}, {2, 5, 3});
}

TEST_CASE("reference MaxPool rejects the Indices output and a missing kernel_shape") {
  Tensor x = iota({1, 1, 4});
  CHECK_THROWS_WITH_AS(run_op("MaxPool", {{"kernel_shape", {2}}}, {&x}, {f32t({1, 1, 3}), type(DType::I64, {1, 1, 3})}),
                       doctest::Contains("MaxPool: the optional Indices output is not supported"), UserError);
  CHECK_THROWS_WITH_AS(run1("MaxPool", {}, {&x}, f32t({1, 1, 3})), doctest::Contains("kernel_shape"), UserError);
}

TEST_CASE("reference AveragePool with and without count_include_pad (1-D)") {
  Tensor x = f32({1, 1, 3}, {1, 2, 3});
  json attrs = {{"kernel_shape", {3}}, {"pads", {1, 1}}};
  check_f32(run1("AveragePool", attrs, {&x}, f32t({1, 1, 3})), {1, 1, 3}, {1.5, 2, 2.5});
  attrs["count_include_pad"] = 1;
  check_f32(run1("AveragePool", attrs, {&x}, f32t({1, 1, 3})), {1, 1, 3}, {1, 2, 5.0 / 3});
}

TEST_CASE("reference AveragePool with and without count_include_pad (2-D)") {
  Tensor x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  json attrs = {{"kernel_shape", {2, 2}}, {"pads", {1, 1, 1, 1}}};
  check_f32(run1("AveragePool", attrs, {&x}, f32t({1, 1, 3, 3})), {1, 1, 3, 3}, {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
  attrs["count_include_pad"] = 1;
  check_f32(run1("AveragePool", attrs, {&x}, f32t({1, 1, 3, 3})), {1, 1, 3, 3},
            {0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1});
}

TEST_CASE("reference AveragePool ceil_mode: the part past the padded end is not counted") {
  // in 5, pads [0,1], k 3, s 2, ceil: windows [0,2], [2,4], [4,6]; position 5 is padding, 6 is past it.
  Tensor x = f32({1, 1, 5}, {1, 2, 3, 4, 5});
  json attrs = {{"kernel_shape", {3}}, {"strides", {2}}, {"pads", {0, 1}}, {"ceil_mode", 1}};
  check_f32(run1("AveragePool", attrs, {&x}, f32t({1, 1, 3})), {1, 1, 3}, {2, 4, 5});
  attrs["count_include_pad"] = 1;
  check_f32(run1("AveragePool", attrs, {&x}, f32t({1, 1, 3})), {1, 1, 3}, {2, 4, 2.5});
}

TEST_CASE("reference AveragePool auto_pad SAME_UPPER and SAME_LOWER") {
  Tensor x = f32({1, 1, 5}, {1, 2, 3, 4, 5});
  check_f32(run1("AveragePool", {{"kernel_shape", {2}}, {"auto_pad", "SAME_UPPER"}}, {&x}, f32t({1, 1, 5})), {1, 1, 5},
            {1.5, 2.5, 3.5, 4.5, 5});
  check_f32(run1("AveragePool", {{"kernel_shape", {2}}, {"auto_pad", "SAME_LOWER"}}, {&x}, f32t({1, 1, 5})), {1, 1, 5},
            {1, 1.5, 2.5, 3.5, 4.5});
  check_f32(run1("AveragePool", {{"kernel_shape", {2}}, {"auto_pad", "VALID"}, {"strides", {2}}}, {&x}, f32t({1, 1, 2})),
            {1, 1, 2}, {1.5, 3.5});
  // VALID keeps only full windows even with ceil_mode.
  json valid_ceil = {{"kernel_shape", {2}}, {"auto_pad", "VALID"}, {"strides", {2}}, {"ceil_mode", 1}};
  check_f32(run1("AveragePool", valid_ceil, {&x}, f32t({1, 1, 2})), {1, 1, 2}, {1.5, 3.5});
  json same_ceil = {{"kernel_shape", {3}}, {"auto_pad", "SAME_UPPER"}, {"strides", {2}}, {"ceil_mode", 1}};
  // ceil(5 / 2) = 3 outputs, total pad (3-1)*2 + 3 - 5 = 2: one each side.
  check_f32(run1("AveragePool", same_ceil, {&x}, f32t({1, 1, 3})), {1, 1, 3}, {1.5, 3, 4.5});
}

TEST_CASE("reference LpPool: p-norm of each window, pads as zeros") {
  Tensor x = f32({1, 1, 4}, {3, -4, 1, 2});
  check_f32(run1("LpPool", {{"kernel_shape", {2}}, {"strides", {2}}}, {&x}, f32t({1, 1, 2})), {1, 1, 2}, {5, std::sqrt(5.0)});
  check_f32(run1("LpPool", {{"kernel_shape", {2}}, {"p", 1}, {"pads", {1, 0}}}, {&x}, f32t({1, 1, 4})), {1, 1, 4},
            {3, 7, 5, 3});
  check_f32(run1("LpPool", {{"kernel_shape", {3}}, {"p", 3}}, {&x}, f32t({1, 1, 2})), {1, 1, 2},
            {std::cbrt(27.0 + 64 + 1), std::cbrt(64.0 + 1 + 8)});
  CHECK_THROWS_WITH_AS(run1("LpPool", {{"kernel_shape", {2}}, {"p", 0}}, {&x}, f32t({1, 1, 3})),
                       doctest::Contains("p must be a positive integer"), UserError);
}

TEST_CASE("reference GlobalAveragePool and GlobalMaxPool") {
  Tensor x = f32({1, 2, 2, 2}, {1, 2, 3, 4, 8, 5, 6, 7});
  check_f32(run1("GlobalAveragePool", {}, {&x}, f32t({1, 2, 1, 1})), {1, 2, 1, 1}, {2.5, 6.5});
  check_f32(run1("GlobalMaxPool", {}, {&x}, f32t({1, 2, 1, 1})), {1, 2, 1, 1}, {4, 8});
  Tensor y = f32({2, 1, 3}, {1, 2, 3, -1, -2, -3});
  check_f32(run1("GlobalMaxPool", {}, {&y}, f32t({2, 1, 1})), {2, 1, 1}, {3, -1});
}
}
