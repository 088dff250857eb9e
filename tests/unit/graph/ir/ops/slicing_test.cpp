// Shape inference and errors of Concat, Split, Slice, Pad, Gather and GatherElements.
#include "tests/unit/graph/ir/ops/op_test_util.h"

using namespace optest;
using atl::UserError;

TEST_SUITE("graph") {

TEST_CASE("concat: axis, negative axis, symbolic non-axis dims") {
  CHECK(Op("Concat", {T({2, 3}), T({2, 5})}, {{"axis", 1}}).type() == "f32[2, 8]");
  CHECK(Op("Concat", {T({S("N"), 3}), T({S("N"), 5}), T({S("N"), 1})}, {{"axis", -1}}).type() == "f32[N, 9]");
  CHECK(Op("Concat", {T({S("N"), 3})}, {{"axis", 0}}).type() == "f32[N, 3]");
  CHECK(Op("Concat", {T({2, 3}), T({2, 5})}, {{"axis", 1}}).define().text ==
        "concat_result(i0, i1) = inputs_0(i0, i1)\nconcat_result(i0, i1 + 3) = inputs_1(i0, i1)");
  CHECK_THROWS_WITH_AS(Op("Concat", {T({2, 3}), T({3, 3})}, {{"axis", 1}}).infer(),
                       doctest::Contains("input 1 f32[3, 3] differs from input 0 f32[2, 3] in dimension 0"), UserError);
  CHECK_THROWS_WITH_AS(Op("Concat", {T({S("N"), 3}), T({2, 3})}, {{"axis", 0}}).infer(),
                       doctest::Contains("dimension 'N' is symbolic, but concatenating along it"), UserError);
  CHECK_THROWS_WITH_AS(Op("Concat", {T({2, 3}), T({2, 3})}).infer(), doctest::Contains("'axis' is required"), UserError);
}

TEST_CASE("split: split sizes, num_outputs, equal parts") {
  auto a = Op("Split", {T({2, 10})}, {{"axis", 1}, {"split", {3, 7}}}, 2).infer();
  CHECK(a[0].str() == "f32[2, 3]");
  CHECK(a[1].str() == "f32[2, 7]");
  auto b = Op("Split", {T({10, 2})}, {{"num_outputs", 3}}, 3).infer();
  CHECK(b[0].str() == "f32[4, 2]");
  CHECK(b[2].str() == "f32[2, 2]");
  auto c = Op("Split", {T({S("N"), 6})}, {{"axis", -1}}, 2).infer();
  CHECK(c[1].str() == "f32[N, 3]");
  CHECK_THROWS_WITH_AS(Op("Split", {T({2, 10})}, {{"axis", 1}, {"split", {3, 6}}}, 2).infer(),
                       doctest::Contains("split sizes add up to 9 but axis 1 has size 10"), UserError);
  CHECK_THROWS_WITH_AS(Op("Split", {T({2, 10})}, {{"num_outputs", 3}}, 2).infer(),
                       doctest::Contains("num_outputs is 3 but the node has 2 outputs"), UserError);
  CHECK_THROWS_WITH_AS(Op("Split", {T({2})}, json::object(), 3).infer(), doctest::Contains("cannot be split into 3"),
                       UserError);
}

TEST_CASE("slice: clamping, negative indices and steps") {
  CHECK(Op("Slice", {T({10, 8})}, {{"starts", {1}}, {"ends", {5}}}).type() == "f32[4, 8]");
  CHECK(Op("Slice", {T({10, 8})}, {{"starts", {-3}}, {"ends", {1000}}, {"axes", {-1}}}).type() == "f32[10, 3]");
  CHECK(Op("Slice", {T({10})}, {{"starts", {-1}}, {"ends", {-1000}}, {"steps", {-1}}}).type() == "f32[10]");
  CHECK(Op("Slice", {T({10})}, {{"starts", {8}}, {"ends", {1}}, {"steps", {-3}}}).type() == "f32[3]");
  CHECK(Op("Slice", {T({10})}, {{"starts", {0}}, {"ends", {10}}, {"steps", {4}}}).type() == "f32[3]");
  CHECK(Op("Slice", {T({S("N"), 8})}, {{"starts", {2}}, {"ends", {4}}, {"axes", {1}}}).type() == "f32[N, 2]");
  CHECK(Op("Slice", {T({S("N"), 8})}, {{"starts", {0}}, {"ends", {INT64_MAX}}}).type() == "f32[N, 8]");
  CHECK(Op("Slice", {T({10})}, {{"starts", {8}}, {"ends", {1}}, {"steps", {-3}}}).define().text ==
        "output(i0) = data(-i0 * 3 + 8)");
  CHECK_THROWS_WITH_AS(Op("Slice", {T({10})}, {{"starts", {5}}, {"ends", {5}}}).infer(), doctest::Contains("is empty"),
                       UserError);
  CHECK_THROWS_WITH_AS(Op("Slice", {T({10})}, {{"starts", {0}}, {"ends", {5}}, {"steps", {0}}}).infer(),
                       doctest::Contains("steps must not be 0"), UserError);
  CHECK_THROWS_WITH_AS(Op("Slice", {T({S("N")})}, {{"starts", {1}}, {"ends", {5}}}).infer(),
                       doctest::Contains("dimension 'N' is symbolic, but slicing axis 0"), UserError);
}

TEST_CASE("pad: modes, axes, negative pads") {
  CHECK(Op("Pad", {T({2, 3})}, {{"pads", {1, 2, 3, 4}}}).type() == "f32[6, 9]");
  CHECK(Op("Pad", {T({S("N"), 3, 4})}, {{"pads", {1, 1}}, {"axes", {-1}}, {"mode", "reflect"}}).type() ==
        "f32[N, 3, 6]");
  CHECK(Op("Pad", {T({5})}, {{"pads", {-1, 2}}}).type() == "f32[6]");
  CHECK_THROWS_WITH_AS(Op("Pad", {T({3})}, {{"pads", {3, 0}}, {"mode", "reflect"}}).infer(),
                       doctest::Contains("reflect padding of 3 needs axis 0 to have more"), UserError);
  CHECK_THROWS_WITH_AS(Op("Pad", {T({3})}, {{"pads", {4, 0}}, {"mode", "wrap"}}).infer(),
                       doctest::Contains("wrap padding of 4 is larger"), UserError);
  CHECK_THROWS_WITH_AS(Op("Pad", {T({3})}, {{"pads", {1, 1}}, {"mode", "symmetric"}}).infer(),
                       doctest::Contains("mode must be constant, reflect, edge or wrap"), UserError);
  CHECK_THROWS_WITH_AS(Op("Pad", {T({3, 3})}, {{"pads", {1, 1}}}).infer(),
                       doctest::Contains("pads has 2 values, expected 4"), UserError);
  CHECK_THROWS_WITH_AS(Op("Pad", {T({S("N")})}, {{"pads", {1, 1}}}).infer(),
                       doctest::Contains("dimension 'N' is symbolic, but padding it"), UserError);
  CHECK_THROWS_WITH_AS(Op("Pad", {T({3})}, {{"pads", {-1, 0}}, {"mode", "edge"}}).infer(),
                       doctest::Contains("negative pads are supported in constant mode only"), UserError);
}

TEST_CASE("gather: axis and index ranks") {
  CHECK(Op("Gather", {T({5, 4}), T({3}, DType::I64)}).type() == "f32[3, 4]");
  CHECK(Op("Gather", {T({5, 4, 3}), T({2, 2}, DType::I32)}, {{"axis", 1}}).type() == "f32[5, 2, 2, 3]");
  CHECK(Op("Gather", {T({5, 4}), T({}, DType::I64)}, {{"axis", -1}}).type() == "f32[5]");
  CHECK(Op("Gather", {T({S("V"), 4}), T({S("N")}, DType::I64)}).type() == "f32[N, 4]");
  CHECK(Op("Gather", {T({5, 4}), T({3}, DType::I64)}).define().text ==
        "output(i0, i1) = data(indices(i0) < 0 ? indices(i0) + 5 : indices(i0), i1)");
  CHECK_THROWS_WITH_AS(Op("Gather", {T({5, 4}), T({3})}).infer(),
                       doctest::Contains("indices must be an i32 or i64 tensor, not f32"), UserError);
}

TEST_CASE("gather elements: output has the indices' shape") {
  CHECK(Op("GatherElements", {T({5, 4}), T({3, 4}, DType::I64)}).type() == "f32[3, 4]");
  CHECK(Op("GatherElements", {T({2, 5, 3}), T({2, 9, 1}, DType::I32)}, {{"axis", 1}}).type() == "f32[2, 9, 1]");
  CHECK(Op("GatherElements", {T({S("N"), 4}), T({S("N"), 6}, DType::I64)}, {{"axis", -1}}).type() == "f32[N, 6]");
  CHECK(Op("GatherElements", {T({5, 4}), T({3, 2}, DType::I64)}).define().text ==
        "output(i0, i1) = data(indices(i0, i1) < 0 ? indices(i0, i1) + 5 : indices(i0, i1), i1)");
  CHECK(Op("GatherElements", {T({5, 4}), T({3, 2}, DType::I64)}).pattern() == atl::PatternKind::Injective);
  CHECK(Op("GatherElements", {T({5, 4}), T({3, 2}, DType::I64)}).flops() == 0);
  CHECK_THROWS_WITH_AS(Op("GatherElements", {T({5, 4}), T({3, 4})}).infer(),
                       doctest::Contains("indices must be an i32 or i64 tensor, not f32"), UserError);
  CHECK_THROWS_WITH_AS(Op("GatherElements", {T({5, 4}), T({3}, DType::I64)}).infer(),
                       doctest::Contains("indices i64[3] must have the rank of data f32[5, 4]"), UserError);
  CHECK_THROWS_WITH_AS(Op("GatherElements", {T({5, 4}), T({3, 5}, DType::I64)}).infer(),
                       doctest::Contains("exceed data f32[5, 4] in dimension 1 (only the axis 0 may be longer)"),
                       UserError);
  CHECK_THROWS_WITH_AS(Op("GatherElements", {T({5, 4}), T({3, 4}, DType::I64)}, {{"axis", 2}}).infer(),
                       doctest::Contains("axis"), UserError);
}

}  // TEST_SUITE
