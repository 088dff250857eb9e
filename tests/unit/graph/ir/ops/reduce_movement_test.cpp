// Shape inference and errors of the reductions and the layout operators
// (Transpose, Reshape, Flatten, Squeeze, Unsqueeze, Expand), ArgMax, ArgMin.
#include "tests/unit/graph/ir/ops/op_test_util.h"

using namespace optest;
using atl::UserError;

TEST_SUITE("graph") {

TEST_CASE("reduce: axes, keepdims, negative axes, noop") {
  CHECK(Op("ReduceSum", {T({2, 3, 4})}, {{"axes", {1}}}).type() == "f32[2, 1, 4]");
  CHECK(Op("ReduceMean", {T({2, 3, 4})}, {{"axes", {-1, 0}}, {"keepdims", 0}}).type() == "f32[3]");
  CHECK(Op("ReduceMax", {T({2, 3, 4})}).type() == "f32[1, 1, 1]");
  CHECK(Op("ReduceMin", {T({2, 3, 4})}, {{"keepdims", 0}}).type() == "f32[]");
  CHECK(Op("ReduceProd", {T({2, 3})}, {{"noop_with_empty_axes", 1}}).type() == "f32[2, 3]");
  CHECK(Op("ReduceSum", {T({S("N"), 3})}, {{"axes", {1}}, {"keepdims", 0}}).type() == "f32[N]");
  CHECK(Op("ReduceSum", {T({2, 3}, DType::I32)}, {{"axes", {1}}}).type() == "i32[2, 1]");
  CHECK_THROWS_WITH_AS(Op("ReduceSum", {T({2, 3})}, {{"axes", {2}}}).infer(),
                       doctest::Contains("ReduceSum: axes 2 is out of range for rank 2"), UserError);
  CHECK_THROWS_WITH_AS(Op("ReduceSum", {T({2, 3})}, {{"axes", {1, -1}}}).infer(), doctest::Contains("names axis 1 twice"),
                       UserError);
  CHECK_THROWS_WITH_AS(Op("ReduceSum", {T({2, 3}), T({1}, DType::I64)}).infer(),
                       doctest::Contains("'axes' must be a constant"), UserError);
  CHECK(Op("ReduceSum", {T({2, 3})}, {{"axes", {1}}}).flops() == 6);
  CHECK(Op("ReduceMean", {T({2, 3})}, {{"axes", {1}}}).flops() == 8);
  CHECK(Op("ReduceMean", {T({2, 3})}, {{"noop_with_empty_axes", 1}}).flops() == 0);
}

TEST_CASE("ArgMax, ArgMin: one axis, i64 output, attribute checks") {
  CHECK(Op("ArgMax", {T({2, 3, 4})}).type() == "i64[1, 3, 4]");
  CHECK(Op("ArgMin", {T({2, 3, 4}, DType::F16)}, {{"axis", -1}, {"keepdims", 0}}).type() == "i64[2, 3]");
  CHECK(Op("ArgMax", {T({S("N"), 5}, DType::I8)}, {{"axis", 1}}).type() == "i64[N, 1]");
  CHECK(Op("ArgMin", {T({7}, DType::I32)}, {{"keepdims", 0}, {"select_last_index", 1}}).type() == "i64[]");
  CHECK(Op("ArgMax", {T({2, 3})}).pattern() == atl::PatternKind::Reduction);
  CHECK(Op("ArgMax", {T({2, 3})}).flops() == 12);
  CHECK_THROWS_WITH_AS(Op("ArgMax", {T({2, 3})}, {{"axis", 2}}).infer(),
                       doctest::Contains("ArgMax: axis 2 is out of range for rank 2"), UserError);
  CHECK_THROWS_WITH_AS(Op("ArgMin", {T({})}).infer(), doctest::Contains("data must have rank at least 1"), UserError);
  CHECK_THROWS_WITH_AS(Op("ArgMax", {T({3}, DType::Bool)}).infer(), doctest::Contains("ArgMax"), UserError);
  CHECK_THROWS_WITH_AS(Op("ArgMax", {T({3})}, {{"select_last_index", 2}}).infer(),
                       doctest::Contains("select_last_index must be 0 or 1, got 2"), UserError);
  CHECK(Op("ArgMax", {T({2, 3})}, {{"axis", 1}}).define().text ==
        "extreme(i0) max=! data(i0, i1)\n"
        "reduced(i0, 0) min=! (data(i0, i1) == extreme(i0) || data(i0, i1) != data(i0, i1) ? i1 : (3 - 1))");
  CHECK(Op("ArgMin", {T({4, 3})}, {{"keepdims", 0}, {"select_last_index", 1}}).define().text ==
        "extreme(i1) min=! data(i0, i1)\n"
        "reduced(i1) max=! (data(i0, i1) == extreme(i1) || data(i0, i1) != data(i0, i1) ? i0 : 0)");
}

TEST_CASE("trilu: a triangle of the last two axes") {
  CHECK(Op("Trilu", {T({2, 3, 4})}).type() == "f32[2, 3, 4]");
  CHECK(Op("Trilu", {T({S("N"), 3}, DType::Bool)}, {{"upper", 0}}).type() == "bool[N, 3]");
  CHECK(Op("Trilu", {T({3, 3})}).flops() == 0);
  CHECK(Op("Trilu", {T({3, 4})}, {{"k", -1}}).define().text == "output(i0, i1) = i1 - i0 >= (-1) ? input(i0, i1) : 0");
  CHECK(Op("Trilu", {T({2, 3, 4})}, {{"upper", 0}}).define().text ==
        "output(i0, i1, i2) = i2 - i1 <= 0 ? input(i0, i1, i2) : 0");
  CHECK_THROWS_WITH_AS(Op("Trilu", {T({4})}).infer(), doctest::Contains("Trilu"), UserError);
  CHECK_THROWS_WITH_AS(Op("Trilu", {T({3, 4})}, {{"upper", 2}}).infer(), doctest::Contains("upper must be 0 or 1, got 2"),
                       UserError);
  // k at run time: a read in the condition.
  CHECK(Op("Trilu", {T({3, 4}), T({}, DType::I64)}).define().text == "output(i0, i1) = i1 - i0 >= k() ? input(i0, i1) : 0");
  CHECK(Op("Trilu", {T({3, 4}), T({1}, DType::I64)}).type() == "f32[3, 4]");
  CHECK_THROWS_WITH_AS(Op("Trilu", {T({3, 4}), T({}, DType::I32)}).infer(), doctest::Contains("k must be i64"), UserError);
  CHECK_THROWS_WITH_AS(Op("Trilu", {T({3, 4}), T({2}, DType::I64)}).infer(), doctest::Contains("k must hold one value"),
                       UserError);
}

TEST_CASE("DepthToSpace, SpaceToDepth, EyeLike") {
  CHECK(Op("DepthToSpace", {T({S("N"), 8, 2, 3})}, {{"blocksize", 2}}).type() == "f32[N, 2, 4, 6]");
  CHECK(Op("SpaceToDepth", {T({1, 2, 4, 6}, DType::I32)}, {{"blocksize", 2}}).type() == "i32[1, 8, 2, 3]");
  CHECK(Op("DepthToSpace", {T({1, 8, 2, 3})}, {{"blocksize", 2}}).define().text ==
        "output(i0, i1, i2, i3) = input(i0, (i2 % 2 * 2 + i3 % 2) * 2 + i1, i2 / 2, i3 / 2)");
  CHECK(Op("DepthToSpace", {T({1, 8, 2, 3})}, {{"blocksize", 2}, {"mode", "CRD"}}).define().text ==
        "output(i0, i1, i2, i3) = input(i0, i1 * 4 + i2 % 2 * 2 + i3 % 2, i2 / 2, i3 / 2)");
  CHECK(Op("SpaceToDepth", {T({1, 3, 4, 6})}, {{"blocksize", 2}}).define().text ==
        "output(i0, i1, i2, i3) = input(i0, i1 % 3, i2 * 2 + i1 / 3 / 2, i3 * 2 + i1 / 3 % 2)");
  CHECK_THROWS_WITH_AS(Op("DepthToSpace", {T({1, 6, 2, 2})}, {{"blocksize", 2}}).infer(),
                       doctest::Contains("channels 6 are not a multiple of blocksize^2 = 4"), UserError);
  CHECK_THROWS_WITH_AS(Op("SpaceToDepth", {T({1, 1, 5, 4})}, {{"blocksize", 2}}).infer(),
                       doctest::Contains("must be multiples of blocksize 2"), UserError);
  CHECK_THROWS_WITH_AS(Op("SpaceToDepth", {T({1, 1, 4, 4})}).infer(), doctest::Contains("'blocksize' is required"),
                       UserError);
  CHECK_THROWS_WITH_AS(Op("DepthToSpace", {T({1, 4, 4})}, {{"blocksize", 2}}).infer(), doctest::Contains("N x C x H x W"),
                       UserError);
  CHECK_THROWS_WITH_AS(Op("DepthToSpace", {T({1, 4, 4, 4})}, {{"blocksize", 2}, {"mode", "XYZ"}}).infer(),
                       doctest::Contains("mode must be 'DCR' or 'CRD'"), UserError);
  CHECK(Op("EyeLike", {T({3, 4}, DType::I32)}).type() == "i32[3, 4]");
  CHECK(Op("EyeLike", {T({3, 4})}, {{"dtype", 7}}).type() == "i64[3, 4]");
  CHECK(Op("EyeLike", {T({3, 4})}, {{"k", -1}}).define().text == "output(i0, i1) = i1 - i0 == (-1) ? 1 : 0");
  CHECK_THROWS_WITH_AS(Op("EyeLike", {T({3})}).infer(), doctest::Contains("must be a matrix"), UserError);
  CHECK_THROWS_WITH_AS(Op("EyeLike", {T({3, 3})}, {{"dtype", 4}}).infer(),
                       doctest::Contains("names element type 4, which Atoll does not support"), UserError);
}

TEST_CASE("OneHot: a new axis of depth, values' dtype") {
  CHECK(Op("OneHot", {T({2, 3}, DType::I64), std::nullopt, T({2})}, {{"depth", 5}}).type() == "f32[2, 3, 5]");
  CHECK(Op("OneHot", {T({S("N")}, DType::I32), std::nullopt, T({2}, DType::I64)}, {{"depth", 4}, {"axis", 0}}).type() ==
        "i64[4, N]");
  CHECK(Op("OneHot", {T({3}, DType::I64), std::nullopt, T({2})}, {{"depth", 4}}).define().text ==
        "output(i0, i1) = (indices(i0) < 0 ? indices(i0) + 4 : indices(i0)) == i1 ? values(1) : values(0)");
  CHECK_THROWS_WITH_AS(Op("OneHot", {T({3}, DType::I64), std::nullopt, T({2})}).infer(),
                       doctest::Contains("'depth' is required"), UserError);
  CHECK_THROWS_WITH_AS(Op("OneHot", {T({3}, DType::I64), T({}, DType::I64), T({2})}).infer(),
                       doctest::Contains("'depth' must be a constant"), UserError);
  CHECK_THROWS_WITH_AS(Op("OneHot", {T({3}, DType::I64), std::nullopt, T({3})}, {{"depth", 4}}).infer(),
                       doctest::Contains("values must hold two values"), UserError);
  CHECK_THROWS_WITH_AS(Op("OneHot", {T({3}, DType::I64), std::nullopt, T({2})}, {{"depth", 4}, {"axis", 2}}).infer(),
                       doctest::Contains("out of range"), UserError);
}

TEST_CASE("transpose: default and explicit perm") {
  CHECK(Op("Transpose", {T({2, 3, 4})}).type() == "f32[4, 3, 2]");
  CHECK(Op("Transpose", {T({S("N"), 3, 4})}, {{"perm", {0, 2, 1}}}).type() == "f32[N, 4, 3]");
  CHECK(Op("Transpose", {T({2, 3, 4})}, {{"perm", {0, 2, 1}}}).define().text == "transposed(i0, i1, i2) = data(i0, i2, i1)");
  CHECK_THROWS_WITH_AS(Op("Transpose", {T({2, 3, 4})}, {{"perm", {0, 1}}}).infer(),
                       doctest::Contains("perm has 2 entries for a tensor of rank 3"), UserError);
  CHECK_THROWS_WITH_AS(Op("Transpose", {T({2, 3})}, {{"perm", {0, 0}}}).infer(), doctest::Contains("twice"), UserError);
  CHECK(Op("Transpose", {T({2, 3})}).flops() == 0);
  CHECK(Op("Transpose", {T({2, 3})}).pattern() == atl::PatternKind::Injective);
}

TEST_CASE("reshape: 0, -1, symbolic dims") {
  CHECK(Op("Reshape", {T({2, 3, 4})}, {{"shape", {6, -1}}}).type() == "f32[6, 4]");
  CHECK(Op("Reshape", {T({2, 3, 4})}, {{"shape", {0, -1}}}).type() == "f32[2, 12]");
  CHECK(Op("Reshape", {T({2, 3, 4})}, {{"shape", {-1}}}).type() == "f32[24]");
  CHECK(Op("Reshape", {T({S("N"), 3, 4})}, {{"shape", {0, 12}}}).type() == "f32[N, 12]");
  CHECK(Op("Reshape", {T({S("N"), 3, 4})}, {{"shape", {-1, 12}}}).type() == "f32[N, 12]");
  CHECK(Op("Reshape", {T({S("N"), 12})}, {{"shape", {0, 3, 4}}}).type() == "f32[N, 3, 4]");
  CHECK(Op("Reshape", {T({2, 3, 4})}, {{"shape", {4, 6}}}).define().text ==
        "reshaped(i0, i1) = data(floor((i0 * 6 + i1) / 12), floor((i0 * 6 + i1) / 4) % 3, (i0 * 6 + i1) % 4)");
  CHECK(Op("Reshape", {T({2, 3, 4})}, {{"shape", {6, 4}}}).define().text ==
        "reshaped(i0, i1) = data(floor(i0 / 3), i0 % 3, i1)");
}

TEST_CASE("reshape: errors") {
  CHECK_THROWS_WITH_AS(Op("Reshape", {T({2, 3})}, {{"shape", {4, 2}}}).infer(),
                       doctest::Contains("cannot reshape f32[2, 3] (6 elements) into [4, 2] (8 elements)"), UserError);
  CHECK_THROWS_WITH_AS(Op("Reshape", {T({2, 3})}, {{"shape", {-1, -1}}}).infer(), doctest::Contains("more than one -1"),
                       UserError);
  CHECK_THROWS_WITH_AS(Op("Reshape", {T({2, 3})}, {{"shape", {4, -1}}}).infer(), doctest::Contains("not a multiple of 4"),
                       UserError);
  CHECK_THROWS_WITH_AS(Op("Reshape", {T({S("N"), 3})}, {{"shape", {-1}}}).infer(),
                       doctest::Contains("the -1 dimension would be 3 * N"), UserError);
  CHECK_THROWS_WITH_AS(Op("Reshape", {T({2, S("N")})}, {{"shape", {-1, 2}}}).infer(),
                       doctest::Contains("dimension 'N' is symbolic, but reshaping across it"), UserError);
  CHECK_THROWS_WITH_AS(Op("Reshape", {T({2, 3})}).infer(), doctest::Contains("'shape' is required"), UserError);
  CHECK_THROWS_WITH_AS(Op("Reshape", {T({2, 3})}, {{"shape", {-2, 3}}}).infer(), doctest::Contains("is invalid"),
                       UserError);
}

TEST_CASE("flatten, squeeze, unsqueeze, expand") {
  CHECK(Op("Flatten", {T({2, 3, 4})}).type() == "f32[2, 12]");
  CHECK(Op("Flatten", {T({2, 3, 4})}, {{"axis", 0}}).type() == "f32[1, 24]");
  CHECK(Op("Flatten", {T({2, 3, 4})}, {{"axis", -1}}).type() == "f32[6, 4]");
  CHECK(Op("Flatten", {T({S("N"), 3, 4})}).type() == "f32[N, 12]");
  CHECK_THROWS_WITH_AS(Op("Flatten", {T({S("N"), 3, 4})}, {{"axis", 2}}).infer(),
                       doctest::Contains("the first dimension would be 3 * N"), UserError);
  CHECK(Op("Squeeze", {T({1, 3, 1, 4})}).type() == "f32[3, 4]");
  CHECK(Op("Squeeze", {T({1, 3, 1, 4})}, {{"axes", {-2}}}).type() == "f32[1, 3, 4]");
  CHECK_THROWS_WITH_AS(Op("Squeeze", {T({1, 3})}, {{"axes", {1}}}).infer(), doctest::Contains("axis 1 has size 3, not 1"),
                       UserError);
  CHECK(Op("Unsqueeze", {T({3, 4})}, {{"axes", {0, -1}}}).type() == "f32[1, 3, 4, 1]");
  CHECK(Op("Unsqueeze", {T({S("N"), 4})}, {{"axes", {1}}}).type() == "f32[N, 1, 4]");
  CHECK_THROWS_WITH_AS(Op("Unsqueeze", {T({3})}).infer(), doctest::Contains("'axes' is required"), UserError);
  CHECK(Op("Expand", {T({3, 1})}, {{"shape", {2, 1, 4}}}).type() == "f32[2, 3, 4]");
  CHECK(Op("Expand", {T({S("N"), 1})}, {{"shape", {1, 5}}}).type() == "f32[N, 5]");
  CHECK_THROWS_WITH_AS(Op("Expand", {T({3, 2})}, {{"shape", {3, 4}}}).infer(), doctest::Contains("do not broadcast"),
                       UserError);
}

TEST_CASE("tile: repeats multiply the dims") {
  CHECK(Op("Tile", {T({2, 3})}, {{"repeats", {3, 2}}}).type() == "f32[6, 6]");
  CHECK(Op("Tile", {T({S("N"), 3}, DType::I64)}, {{"repeats", {1, 4}}}).type() == "i64[N, 12]");
  CHECK(Op("Tile", {T({2, 3})}, {{"repeats", {3, 1}}}).define().text == "output(i0, i1) = input(i0 % 2, i1)");
  CHECK(Op("Tile", {T({2, 3})}, {{"repeats", {3, 1}}}).pattern() == atl::PatternKind::Injective);
  CHECK_THROWS_WITH_AS(Op("Tile", {T({2, 3})}).infer(), doctest::Contains("Tile: 'repeats' is required"), UserError);
  CHECK_THROWS_WITH_AS(Op("Tile", {T({2, 3})}, {{"repeats", {2}}}).infer(),
                       doctest::Contains("repeats has 1 entries for an input of rank 2"), UserError);
  CHECK_THROWS_WITH_AS(Op("Tile", {T({2, 3})}, {{"repeats", {0, 1}}}).infer(),
                       doctest::Contains("repeats entries must be positive"), UserError);
  CHECK_THROWS_WITH_AS(Op("Tile", {T({S("N"), 3})}, {{"repeats", {2, 1}}}).infer(),
                       doctest::Contains("repeating axis 0"), UserError);
  CHECK_THROWS_WITH_AS(Op("Tile", {T({2, 3}), T({2}, DType::I64)}).infer(),
                       doctest::Contains("'repeats' must be a constant"), UserError);
}

}  // TEST_SUITE
