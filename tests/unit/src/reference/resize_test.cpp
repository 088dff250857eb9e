// Reference Resize: ONNX's documented examples, the coordinate
// transformations and nearest modes worked by hand, sizes, axes and the
// aspect-ratio policies.
#include "tests/unit/src/reference/reference_test_util.h"

using namespace atl;
using namespace atl::reference::test;
using nlohmann::json;

TEST_SUITE("src") {
TEST_CASE("reference Resize: ONNX's upsample and downsample examples") {
  Tensor x22 = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  check_f32(run1("Resize", {{"scales", {1, 1, 2, 3}}}, {&x22}, f32t({1, 1, 4, 6})), {1, 1, 4, 6},
            {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
  check_f32(run1("Resize", {{"scales", {1, 1, 2, 2}}, {"mode", "linear"}}, {&x22}, f32t({1, 1, 4, 4})), {1, 1, 4, 4},
            {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4});
  check_f32(run1("Resize", {{"scales", {1, 1, 2, 2}}, {"mode", "linear"}, {"coordinate_transformation_mode", "align_corners"}},
                 {&x22}, f32t({1, 1, 4, 4})),
            {1, 1, 4, 4},
            {1, 4.0 / 3, 5.0 / 3, 2, 5.0 / 3, 2, 7.0 / 3, 8.0 / 3, 7.0 / 3, 8.0 / 3, 3, 10.0 / 3, 3, 10.0 / 3, 11.0 / 3, 4});
  Tensor x24 = f32({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  check_f32(run1("Resize", {{"scales", {1, 1, 0.6, 0.6}}}, {&x24}, f32t({1, 1, 1, 2})), {1, 1, 1, 2}, {1, 3});
  check_f32(run1("Resize", {{"scales", {1, 1, 0.6, 0.6}}, {"mode", "linear"}}, {&x24}, f32t({1, 1, 1, 2})), {1, 1, 1, 2},
            {2.6666665, 4.3333331});
}

TEST_CASE("reference Resize: coordinate transformations and nearest modes by hand") {
  Tensor x = f32({5}, {10, 11, 12, 13, 14});
  auto near = [&](json attrs, std::int64_t n) { return run1("Resize", std::move(attrs), {&x}, f32t({n})); };
  // sizes 3: scale 3/5. half_pixel: x = (i + 1/2) * 5/3 - 1/2 = 1/3, 2, 11/3.
  check_f32(near({{"sizes", {3}}}, 3), {3}, {10, 12, 14});
  // asymmetric: x = i * 5/3 = 0, 5/3, 10/3; floor 0, 1, 3; ceil 0, 2, 4.
  check_f32(near({{"sizes", {3}}, {"coordinate_transformation_mode", "asymmetric"}, {"nearest_mode", "floor"}}, 3), {3},
            {10, 11, 13});
  check_f32(near({{"sizes", {3}}, {"coordinate_transformation_mode", "asymmetric"}, {"nearest_mode", "ceil"}}, 3), {3},
            {10, 12, 14});
  // scale 1/2, asymmetric: x = 2i = 0, 2 (floor(5 / 2) = 2 outputs).
  check_f32(near({{"scales", {0.5}}, {"coordinate_transformation_mode", "asymmetric"}}, 2), {2}, {10, 12});
  // scale 1/2, half_pixel: x = 2i + 1/2 = 1/2, 5/2: ties, floor or ceil by nearest_mode.
  check_f32(near({{"scales", {0.5}}}, 2), {2}, {10, 12});
  check_f32(near({{"scales", {0.5}}, {"nearest_mode", "round_prefer_ceil"}}, 2), {2}, {11, 13});
  // align_corners, sizes 3: x = i * 4/2 = 0, 2, 4.
  check_f32(near({{"sizes", {3}}, {"coordinate_transformation_mode", "align_corners"}}, 3), {3}, {10, 12, 14});
  // pytorch_half_pixel with one output: x = 0.
  check_f32(near({{"sizes", {1}}, {"coordinate_transformation_mode", "pytorch_half_pixel"}}, 1), {1}, {10});
  check_f32(near({{"sizes", {1}}}, 1), {1}, {12});
  // half_pixel_symmetric, scale 0.5 (2 outputs): adjustment 2 / 2.5 = 0.8,
  // offset 2.5 * 0.2 = 0.5, x = 0.5 + 2i + 1/2 = 1, 3.
  check_f32(near({{"scales", {0.5}}, {"coordinate_transformation_mode", "half_pixel_symmetric"}}, 2), {2}, {11, 13});
  // linear, scale 2, half_pixel: x = i / 2 - 1/4; the ends clamp.
  check_f32(run1("Resize", {{"scales", {2}}, {"mode", "linear"}}, {&x}, f32t({10})), {10},
            {10, 10.25, 10.75, 11.25, 11.75, 12.25, 12.75, 13.25, 13.75, 14});
}

TEST_CASE("reference Resize: axes, constant inputs and aspect-ratio policies") {
  Tensor x = iota({1, 2, 6, 8});
  Tensor y = run1("Resize", {{"axes", {2, 3}}, {"sizes", {9, 9}}, {"keep_aspect_ratio_policy", "not_larger"}}, {&x},
                  f32t({1, 2, 7, 9}));
  CHECK(y.shape == Shape{1, 2, 7, 9});
  Tensor z = run1("Resize", {{"axes", {3, 2}}, {"sizes", {9, 9}}, {"keep_aspect_ratio_policy", "not_smaller"}}, {&x},
                  f32t({1, 2, 9, 12}));
  CHECK(z.shape == Shape{1, 2, 9, 12});
  Tensor s = f32({1}, {2});
  Tensor x2 = f32({2, 2}, {1, 2, 3, 4});
  check_f32(run1("Resize", {{"axes", {-1}}}, {&x2, nullptr, &s}, f32t({2, 4})), {2, 4}, {1, 1, 2, 2, 3, 3, 4, 4});
  CHECK_THROWS_WITH_AS(run1("Resize", {{"scales", {2, 2}}, {"sizes", {4, 4}}}, {&x2}, f32t({4, 4})),
                       doctest::Contains("exactly one of scales and sizes"), UserError);
  CHECK_THROWS_WITH_AS(run1("Resize", {{"scales", {2, 2}}, {"mode", "cubic"}}, {&x2}, f32t({4, 4})),
                       doctest::Contains("mode 'cubic' is not supported"), UserError);
}
}
