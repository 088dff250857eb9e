// Resize: output shapes from scales and sizes, the rejected modes and
// attributes, its definition text, and ONNX's documented examples evaluated
// through the definition.
#include "tests/unit/graph/ir/ops/op_test_util.h"

using namespace optest;
using atl::UserError;

TEST_SUITE("graph") {

TEST_CASE("resize: output shapes") {
  CHECK(Op("Resize", {T({1, 3, 5, 7})}, {{"scales", {1, 1, 2, 2}}}).type() == "f32[1, 3, 10, 14]");
  CHECK(Op("Resize", {T({1, 2, 9, 11})}, {{"scales", {1, 1, 0.5, 0.6}}}).type() == "f32[1, 2, 4, 6]");
  CHECK(Op("Resize", {T({2, 3, 7, 5})}, {{"scales", {1, 1, 1.5, 0.6}}}).type() == "f32[2, 3, 10, 3]");
  // 0.7 is 7/10, not its f32 value 0.699999988: 10 * 0.7 is 7.
  CHECK(Op("Resize", {T({10})}, {{"scales", {0.7}}}).type() == "f32[7]");
  CHECK(Op("Resize", {T({1, 3, 7, 9})}, {{"sizes", {1, 3, 11, 4}}, {"mode", "linear"}}).type() == "f32[1, 3, 11, 4]");
  CHECK(Op("Resize", {T({2, 5, 13})}, {{"scales", {1, 1, 2.5}}}).type() == "f32[2, 5, 32]");
  CHECK(Op("Resize", {T({2, 3, 5, 7})}, {{"axes", {2, 3}}, {"scales", {1.5, 0.6}}}).type() == "f32[2, 3, 7, 4]");
  CHECK(Op("Resize", {T({2, 3, 5, 7})}, {{"axes", {-1}}, {"sizes", {11}}}).type() == "f32[2, 3, 5, 11]");
  CHECK(Op("Resize", {T({S("N"), 2, 5})}, {{"axes", {2}}, {"sizes", {9}}}).type() == "f32[N, 2, 9]");
  CHECK(Op("Resize", {T({S("N"), 2, 5}, DType::F16)}, {{"scales", {1, 1, 2}}}).type() == "f16[N, 2, 10]");
  // One scale for both axes: the smaller ratio (9/8) or the larger (3/2), sizes rounded half up.
  CHECK(Op("Resize", {T({1, 2, 6, 8})}, {{"axes", {2, 3}}, {"sizes", {9, 9}}, {"keep_aspect_ratio_policy", "not_larger"}})
            .type() == "f32[1, 2, 7, 9]");
  CHECK(Op("Resize", {T({1, 2, 6, 8})}, {{"axes", {2, 3}}, {"sizes", {9, 9}}, {"keep_aspect_ratio_policy", "not_smaller"}})
            .type() == "f32[1, 2, 9, 12]");
}

TEST_CASE("resize: rejected modes, attributes and inputs") {
  auto err = [](json attrs, const char *what) {
    CHECK_THROWS_WITH_AS(Op("Resize", {T({1, 1, 4, 4})}, std::move(attrs)).infer(), doctest::Contains(what), UserError);
  };
  err({{"scales", {1, 1, 2, 2}}, {"mode", "cubic"}}, "Resize: mode 'cubic' is not supported (nearest and linear are)");
  err({{"scales", {1, 1, 2, 2}}, {"mode", "area"}}, "mode must be nearest or linear, not 'area'");
  err({{"scales", {1, 1, 2, 2}}, {"coordinate_transformation_mode", "tf_crop_and_resize"}},
      "coordinate_transformation_mode 'tf_crop_and_resize' is not supported");
  err({{"scales", {1, 1, 2, 2}}, {"coordinate_transformation_mode", "tf_half_pixel_for_nn"}},
      "coordinate_transformation_mode must be half_pixel");
  err({{"scales", {1, 1, 2, 2}}, {"nearest_mode", "round"}}, "nearest_mode must be round_prefer_floor");
  err({{"scales", {1, 1, 2, 2}}, {"antialias", 1}}, "antialias=1 is not supported");
  err({{"scales", {1, 1, 2, 2}}, {"exclude_outside", 1}}, "exclude_outside=1 is not supported");
  err({{"sizes", {1, 1, 8, 8}}, {"keep_aspect_ratio_policy", "fit"}}, "keep_aspect_ratio_policy must be stretch");
  err({{"scales", {1, 1, 2, 2}}, {"sizes", {1, 1, 8, 8}}}, "give exactly one of 'scales' and 'sizes'");
  err(json::object(), "give exactly one of 'scales' and 'sizes'");
  err({{"scales", {2, 2}}}, "scales has 2 entries for 4 axes");
  err({{"axes", {2, 3}}, {"sizes", {8}}}, "sizes has 1 entries for 2 axes");
  err({{"scales", {1, 1, 0, 2}}}, "scales must be positive, got 0 for axis 2");
  err({{"scales", {1, 1, 0.2, 1}}}, "scale 0.2 leaves axis 2 of size 4 empty");
  err({{"sizes", {1, 1, 0, 4}}}, "sizes must be positive, got 0 for axis 2");
  err({{"axes", {2, 2}}, {"scales", {2, 2}}}, "axes");
  CHECK_THROWS_WITH_AS(Op("Resize", {T({1, 1, 3, 100})},
                          {{"axes", {2, 3}}, {"sizes", {3, 1}}, {"keep_aspect_ratio_policy", "not_larger"}})
                           .infer(),
                       doctest::Contains("keep_aspect_ratio_policy not_larger leaves axis 2 of size 3 empty"), UserError);
  CHECK_THROWS_WITH_AS(Op("Resize", {T({1, S("H")})}, {{"scales", {1, 2}}}).infer(),
                       doctest::Contains("resizing it"), UserError);
  CHECK_THROWS_WITH_AS(Op("Resize", {T({4}, DType::I32)}, {{"scales", {2}}}).infer(),
                       doctest::Contains("Resize: X must be a float tensor (f32, f16, bf16), not i32"), UserError);
  CHECK_THROWS_WITH_AS(Op("Resize", {T({4}), std::nullopt, T({1})}).infer(),
                       doctest::Contains("'scales' must be a constant"), UserError);
  CHECK_THROWS_WITH_AS(Op("Resize", {T({4}), std::nullopt, std::nullopt, T({1}, DType::I64)}).infer(),
                       doctest::Contains("'sizes' must be a constant"), UserError);
}

TEST_CASE("resize: definition text, pattern and flops") {
  // Nearest, asymmetric, floor: x = i / 2, always inside the input.
  Op up("Resize", {T({4})}, {{"scales", {2}}, {"coordinate_transformation_mode", "asymmetric"}, {"nearest_mode", "floor"}});
  CHECK(up.define().text == "Y(i0) = X(floor((i0) / 2)) where i0 in 0:8");
  CHECK(up.pattern() == atl::PatternKind::Injective);
  CHECK(up.flops() == 0);
  // Half-pixel: x = (2i - 1) / 4; floor(x) + 1 reaches past the end, and
  // floor(x) is -1 at i = 0: both read through the clamping table.
  Op lin("Resize", {T({3})}, {{"scales", {2}}, {"mode", "linear"}});
  CHECK(lin.define().text ==
        "r0(k) = min(max(k - 1, 0), 2) where k in 0:5\n"
        "w0(i0) = (i0 * 2 - 1) / 4 - r0(floor((i0 * 2 + 3) / 4)) where i0 in 0:6\n"
        "Y(i0) = (1 - w0(i0)) * X(r0(floor((i0 * 2 + 3) / 4))) + w0(i0) * X(r0(floor((i0 * 2 + 7) / 4))) where i0 in 0:6");
  CHECK(lin.flops() == 6 * 3);
  CHECK(Op("Resize", {T({1, 1, 4, 4})}, {{"scales", {1, 1, 2, 2}}, {"mode", "linear"}}).flops() == 64 * 9);
  // Axes whose scale is 1 are read directly.
  CHECK(Op("Resize", {T({2, 4})}, {{"scales", {1, 0.5}}, {"coordinate_transformation_mode", "asymmetric"}})
            .define()
            .text == "Y(i0, i1) = X(i0, i1 * 2) where i1 in 0:2");
}

TEST_CASE("resize: ONNX's examples through the definition") {
  atl::Tensor x22 = tensor({1, 1, 2, 2}, {1, 2, 3, 4});
  CHECK(Op("Resize", {T({1, 1, 2, 2})}, {{"scales", {1, 1, 2, 3}}}).eval({x22}) ==
        std::vector<double>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
  check_close(Op("Resize", {T({1, 1, 2, 2})}, {{"scales", {1, 1, 2, 2}}, {"mode", "linear"}}).eval({x22}),
              {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4});
  check_close(Op("Resize", {T({1, 1, 2, 2})},
                 {{"scales", {1, 1, 2, 2}}, {"mode", "linear"}, {"coordinate_transformation_mode", "align_corners"}})
                  .eval({x22}),
              {1, 4.0 / 3, 5.0 / 3, 2, 5.0 / 3, 2, 7.0 / 3, 8.0 / 3, 7.0 / 3, 8.0 / 3, 3, 10.0 / 3, 3, 10.0 / 3,
               11.0 / 3, 4});
  atl::Tensor x24 = tensor({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(Op("Resize", {T({1, 1, 2, 4})}, {{"scales", {1, 1, 0.6, 0.6}}}).eval({x24}) == std::vector<double>{1, 3});
  check_close(Op("Resize", {T({1, 1, 2, 4})}, {{"scales", {1, 1, 0.6, 0.6}}, {"mode", "linear"}}).eval({x24}),
              {2.6666665, 4.3333331});
  // sizes 3x3 from 4x4, half_pixel: x = (i + 1/2) * 4/3 - 1/2 is 1/6, 3/2 (a tie: floor) and 17/6.
  atl::Tensor x44 = tensor({1, 1, 4, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  CHECK(Op("Resize", {T({1, 1, 4, 4})}, {{"sizes", {1, 1, 3, 3}}}).eval({x44}) ==
        std::vector<double>{1, 2, 4, 5, 6, 8, 13, 14, 16});
}

}  // TEST_SUITE
