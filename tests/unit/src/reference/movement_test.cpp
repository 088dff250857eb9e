// Reference data movement: Transpose, Reshape, Flatten, Squeeze, Unsqueeze,
// Concat, Split, Slice, Pad, Expand, Tile, Gather and GatherElements, worked
// by hand.
#include "tests/unit/src/reference/reference_test_util.h"

#include <limits>

using namespace atl;
using namespace atl::reference::test;
using nlohmann::json;

TEST_SUITE("src") {
TEST_CASE("reference Transpose default and explicit perm") {
  Tensor x = iota({2, 3}, 1);
  check_f32(run1("Transpose", {}, {&x}, f32t({3, 2})), {3, 2}, {1, 4, 2, 5, 3, 6});
  // out[i][j][k] = X[k][i][j] with X[a][b][c] = 4a + 2b + c.
  Tensor y = iota({2, 2, 2});
  check_f32(run1("Transpose", {{"perm", {1, 2, 0}}}, {&y}, f32t({2, 2, 2})), {2, 2, 2}, {0, 4, 1, 5, 2, 6, 3, 7});
  CHECK_THROWS_WITH_AS(run1("Transpose", {{"perm", {0, 0}}}, {&x}, f32t({2, 2})), doctest::Contains("not a permutation"),
                       UserError);
}

TEST_CASE("reference Reshape with 0, -1 and allowzero") {
  Tensor x = iota({2, 3, 4});
  Tensor r = run1("Reshape", {{"shape", {0, -1}}}, {&x, nullptr}, f32t({2, 12}));
  CHECK(r.shape == Shape{2, 12});
  CHECK(r.data == x.data);
  check_f32(run1("Reshape", {{"shape", {-1}}}, {&x}, f32t({24})), {24}, x.data);
  Tensor s = iota({2, 3});
  CHECK_THROWS_WITH_AS(run1("Reshape", {{"shape", {0, 6}}, {"allowzero", 1}}, {&s}, f32t({0, 6})),
                       doctest::Contains("cannot reshape"), UserError);
  CHECK_THROWS_WITH_AS(run1("Reshape", {{"shape", {-1, -1}}}, {&s}, f32t({6})), doctest::Contains("more than one -1"),
                       UserError);
}

TEST_CASE("reference Flatten at positive, zero and negative axes") {
  Tensor x = iota({2, 3, 4});
  CHECK(run1("Flatten", {{"axis", 2}}, {&x}, f32t({6, 4})).shape == Shape{6, 4});
  CHECK(run1("Flatten", {{"axis", 0}}, {&x}, f32t({1, 24})).shape == Shape{1, 24});
  CHECK(run1("Flatten", {{"axis", -1}}, {&x}, f32t({6, 4})).shape == Shape{6, 4});
  CHECK(run1("Flatten", {}, {&x}, f32t({2, 12})).data == x.data);
}

TEST_CASE("reference Squeeze and Unsqueeze") {
  Tensor x = iota({1, 3, 1, 2});
  CHECK(run1("Squeeze", {}, {&x}, f32t({3, 2})).shape == Shape{3, 2});
  CHECK(run1("Squeeze", {{"axes", {-2}}}, {&x, nullptr}, f32t({1, 3, 2})).shape == Shape{1, 3, 2});
  CHECK_THROWS_WITH_AS(run1("Squeeze", {{"axes", {1}}}, {&x}, f32t({1, 1, 2})), doctest::Contains("cannot squeeze"),
                       UserError);
  Tensor v = iota({3});
  Tensor u = run1("Unsqueeze", {{"axes", {0, -1}}}, {&v, nullptr}, f32t({1, 3, 1}));
  CHECK(u.shape == Shape{1, 3, 1});
  CHECK(u.data == v.data);
}

TEST_CASE("reference Concat along a negative axis") {
  Tensor a = f32({2, 1}, {1, 2}), b = f32({2, 2}, {10, 11, 20, 21});
  check_f32(run1("Concat", {{"axis", -1}}, {&a, &b}, f32t({2, 3})), {2, 3}, {1, 10, 11, 2, 20, 21});
  check_f32(run1("Concat", {{"axis", 0}}, {&b, &b}, f32t({4, 2})), {4, 2}, {10, 11, 20, 21, 10, 11, 20, 21});
  CHECK_THROWS_WITH_AS(run1("Concat", {{"axis", 0}}, {&a, &b}, f32t({4, 2})), doctest::Contains("does not match"),
                       UserError);
}

TEST_CASE("reference Split: uneven num_outputs, explicit split, default equal parts") {
  Tensor x = iota({7});
  std::vector<Tensor> r = run_op("Split", {{"num_outputs", 3}}, {&x}, {f32t({3}), f32t({3}), f32t({1})});
  REQUIRE(r.size() == 3);
  check_f32(r[0], {3}, {0, 1, 2});
  check_f32(r[1], {3}, {3, 4, 5});
  check_f32(r[2], {1}, {6});
  Tensor y = iota({2, 3});
  r = run_op("Split", {{"axis", 1}, {"split", {1, 2}}}, {&y, nullptr}, {f32t({2, 1}), f32t({2, 2})});
  check_f32(r[0], {2, 1}, {0, 3});
  check_f32(r[1], {2, 2}, {1, 2, 4, 5});
  r = run_op("Split", {{"axis", -1}}, {&y}, {f32t({2, 1}), f32t({2, 1}), f32t({2, 1})});
  check_f32(r[2], {2, 1}, {2, 5});
  CHECK_THROWS_WITH_AS(run_op("Split", {{"split", {1, 1}}}, {&x}, {f32t({1}), f32t({1})}),
                       doctest::Contains("does not sum"), UserError);
}

TEST_CASE("reference Slice with negative starts, ends and steps") {
  Tensor x = f32({5}, {1, 2, 3, 4, 5});
  check_f32(run1("Slice", {{"starts", {-1}}, {"ends", {-6}}, {"steps", {-1}}}, {&x}, f32t({5})), {5}, {5, 4, 3, 2, 1});
  check_f32(run1("Slice", {{"starts", {4}}, {"ends", {0}}, {"steps", {-2}}}, {&x}, f32t({2})), {2}, {5, 3});
  check_f32(run1("Slice", {{"starts", {-3}}, {"ends", {-1}}}, {&x, nullptr, nullptr}, f32t({2})), {2}, {3, 4});
  // Out-of-range starts and ends clamp.
  check_f32(run1("Slice", {{"starts", {-100}}, {"ends", {100}}, {"steps", {2}}}, {&x}, f32t({3})), {3}, {1, 3, 5});
  check_f32(run1("Slice", {{"starts", {100}}, {"ends", {-100}}, {"steps", {-3}}}, {&x}, f32t({2})), {2}, {5, 2});
  // Reversing with the extreme ends and steps that exporters write.
  const std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  check_f32(run1("Slice", {{"starts", {hi}}, {"ends", {lo}}, {"steps", {-1}}}, {&x}, f32t({5})), {5}, {5, 4, 3, 2, 1});
  check_f32(run1("Slice", {{"starts", {-1}}, {"ends", {lo}}, {"steps", {lo}}}, {&x}, f32t({1})), {1}, {5});
}

TEST_CASE("reference Slice on chosen axes with an INT64_MAX end") {
  Tensor x = iota({2, 4});
  json attrs = {{"starts", {1}}, {"ends", {std::numeric_limits<std::int64_t>::max()}}, {"axes", {-1}}};
  check_f32(run1("Slice", attrs, {&x}, f32t({2, 3})), {2, 3}, {1, 2, 3, 5, 6, 7});
  CHECK_THROWS_WITH_AS(run1("Slice", {{"starts", {0}}, {"ends", {1}}, {"steps", {0}}}, {&x}, f32t({1, 4})),
                       doctest::Contains("non-zero"), UserError);
}

TEST_CASE("reference Pad constant, reflect, edge and wrap") {
  Tensor x = f32({3}, {1, 2, 3});
  check_f32(run1("Pad", {{"pads", {1, 2}}, {"constant_value", 9}}, {&x, nullptr, nullptr}, f32t({6})), {6},
            {9, 1, 2, 3, 9, 9});
  check_f32(run1("Pad", {{"pads", {1, 1}}}, {&x}, f32t({5})), {5}, {0, 1, 2, 3, 0});
  Tensor y = f32({4}, {1, 2, 3, 4});
  check_f32(run1("Pad", {{"pads", {2, 2}}, {"mode", "reflect"}}, {&y}, f32t({8})), {8}, {3, 2, 1, 2, 3, 4, 3, 2});
  check_f32(run1("Pad", {{"pads", {2, 1}}, {"mode", "edge"}}, {&x}, f32t({6})), {6}, {1, 1, 1, 2, 3, 3});
  check_f32(run1("Pad", {{"pads", {2, 1}}, {"mode", "wrap"}}, {&x}, f32t({6})), {6}, {2, 3, 1, 2, 3, 1});
  CHECK_THROWS_WITH_AS(run1("Pad", {{"pads", {1, 1}}, {"mode", "mirror"}}, {&x}, f32t({5})), doctest::Contains("mode"),
                       UserError);
}

TEST_CASE("reference Pad: negative pads crop, axes choose the padded dims") {
  Tensor x = f32({5}, {1, 2, 3, 4, 5});
  check_f32(run1("Pad", {{"pads", {-1, 1}}}, {&x}, f32t({5})), {5}, {2, 3, 4, 5, 0});
  // Edge after cropping repeats the new edge.
  check_f32(run1("Pad", {{"pads", {1, -2}}, {"mode", "edge"}}, {&x}, f32t({4})), {4}, {1, 1, 2, 3});
  Tensor m = f32({2, 2}, {1, 2, 3, 4});
  check_f32(run1("Pad", {{"pads", {1, 0}}, {"axes", {1}}, {"mode", "edge"}}, {&m, nullptr, nullptr, nullptr},
                 f32t({2, 3})),
            {2, 3}, {1, 1, 2, 3, 3, 4});
  check_f32(run1("Pad", {{"pads", {1, 0, 0, 1}}, {"constant_value", -1}}, {&m}, f32t({3, 3})), {3, 3},
            {-1, -1, -1, 1, 2, -1, 3, 4, -1});
}

TEST_CASE("reference Expand broadcasts both ways") {
  Tensor x = f32({3, 1}, {1, 2, 3});
  Tensor r = run1("Expand", {{"shape", {2, 1, 4}}}, {&x, nullptr}, f32t({2, 3, 4}));
  check_f32(r, {2, 3, 4}, {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3});
  Tensor y = iota({2, 3});
  check_f32(run1("Expand", {{"shape", {1}}}, {&y}, f32t({2, 3})), {2, 3}, y.data);
}

TEST_CASE("reference Gather with negative indices, 2-D indices and a scalar index") {
  Tensor x = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor idx = make(DType::I64, {2}, {-1, 0});
  check_f32(run1("Gather", {}, {&x, &idx}, f32t({2, 2})), {2, 2}, {5, 6, 1, 2});
  Tensor idx2 = make(DType::I32, {2, 1}, {1, 0});
  check_f32(run1("Gather", {{"axis", 1}}, {&x, &idx2}, f32t({3, 2, 1})), {3, 2, 1}, {2, 1, 4, 3, 6, 5});
  Tensor one = make(DType::I64, {}, {1});
  check_f32(run1("Gather", {}, {&x, &one}, f32t({2})), {2}, {3, 4});
}

TEST_CASE("reference Gather rejects out-of-range indices") {
  Tensor x = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor idx = make(DType::I64, {1}, {3});
  CHECK_THROWS_WITH_AS(run1("Gather", {}, {&x, &idx}, f32t({1, 2})),
                       doctest::Contains("Gather: index 3 is out of range for axis 0 of size 3"), UserError);
  Tensor neg = make(DType::I64, {1}, {-4});
  CHECK_THROWS_WITH_AS(run1("Gather", {}, {&x, &neg}, f32t({1, 2})), doctest::Contains("out of range"), UserError);
}

TEST_CASE("reference Tile repeats each axis") {
  Tensor x = f32({2, 2}, {1, 2, 3, 4});
  check_f32(run1("Tile", {{"repeats", {2, 3}}}, {&x}, f32t({4, 6})), {4, 6},
            {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4});
  Tensor r = make(DType::I64, {2}, {1, 2});
  check_f32(run1("Tile", {}, {&x, &r}, f32t({2, 4})), {2, 4}, {1, 2, 1, 2, 3, 4, 3, 4});
  CHECK_THROWS_WITH_AS(run1("Tile", {{"repeats", {2}}}, {&x}, f32t({4, 2})), doctest::Contains("one entry per axis"),
                       UserError);
}

TEST_CASE("reference SpaceToDepth and DepthToSpace: ONNX's examples") {
  // SpaceToDepth's example: (1, 1, 4, 6) to (1, 4, 2, 3), blocksize 2.
  Tensor x = f32({1, 1, 4, 6}, {0, 6, 1, 7, 2, 8, 12, 18, 13, 19, 14, 20, 3, 9, 4, 10, 5, 11, 15, 21, 16, 22, 17, 23});
  std::vector<double> y(24);
  for (int i = 0; i < 24; ++i) y[i] = i;
  check_f32(run1("SpaceToDepth", {{"blocksize", 2}}, {&x}, f32t({1, 4, 2, 3})), {1, 4, 2, 3}, y);
  // DepthToSpace (DCR) undoes it.
  Tensor z = f32({1, 4, 2, 3}, y);
  check_f32(run1("DepthToSpace", {{"blocksize", 2}}, {&z}, f32t({1, 1, 4, 6})), {1, 1, 4, 6}, x.data);
  // CRD on two channels: output channel c reads input channels 4c .. 4c + 3.
  Tensor w = f32({1, 8, 1, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  check_f32(run1("DepthToSpace", {{"blocksize", 2}, {"mode", "CRD"}}, {&w}, f32t({1, 2, 2, 2})), {1, 2, 2, 2},
            {0, 1, 2, 3, 4, 5, 6, 7});
  check_f32(run1("DepthToSpace", {{"blocksize", 2}}, {&w}, f32t({1, 2, 2, 2})), {1, 2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7});
}

TEST_CASE("reference OneHot: axis, negative and out-of-range indices") {
  Tensor i = make(DType::I64, {4}, {0, -1, 3, 5}), v = f32({2}, {-1, 7});
  check_f32(run1("OneHot", {{"depth", 4}}, {&i, nullptr, &v}, f32t({4, 4})), {4, 4},
            {7, -1, -1, -1, -1, -1, -1, 7, -1, -1, -1, 7, -1, -1, -1, -1});
  Tensor d = make(DType::F32, {}, {3}), j = f32({2}, {1.7, -0.5});
  check_f32(run1("OneHot", {{"axis", 0}}, {&j, &d, &v}, f32t({3, 2})), {3, 2}, {-1, 7, 7, -1, -1, -1});
}

TEST_CASE("reference EyeLike") {
  Tensor x = f32({2, 3}, std::vector<double>(6, 5));
  check_tensor(run1("EyeLike", {{"k", 1}}, {&x}, type(DType::I32, {2, 3})), DType::I32, {2, 3}, {0, 1, 0, 0, 0, 1});
  check_f32(run1("EyeLike", {}, {&x}, f32t({2, 3})), {2, 3}, {1, 0, 0, 0, 1, 0});
}

TEST_CASE("reference Trilu keeps the upper or lower triangle") {
  Tensor x = f32({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  check_f32(run1("Trilu", {}, {&x}, f32t({3, 4})), {3, 4}, {1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12});
  check_f32(run1("Trilu", {{"upper", 0}}, {&x}, f32t({3, 4})), {3, 4}, {1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0});
  Tensor k = make(DType::I64, {}, {-1});
  check_f32(run1("Trilu", {}, {&x, &k}, f32t({3, 4})), {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11, 12});
  check_f32(run1("Trilu", {{"upper", 0}, {"k", 2}}, {&x}, f32t({3, 4})), {3, 4}, {1, 2, 3, 0, 5, 6, 7, 8, 9, 10, 11, 12});
  Tensor v = f32({3}, {1, 2, 3});
  CHECK_THROWS_WITH_AS(run1("Trilu", {}, {&v}, f32t({3})), doctest::Contains("rank 2 or more"), UserError);
}

TEST_CASE("reference GatherElements along an axis, negative indices") {
  // ONNX's example: data [[1, 2], [3, 4]], indices [[0, 0], [1, 0]], axis 1.
  Tensor x = f32({2, 2}, {1, 2, 3, 4}), i = make(DType::I64, {2, 2}, {0, 0, 1, 0});
  check_f32(run1("GatherElements", {{"axis", 1}}, {&x, &i}, f32t({2, 2})), {2, 2}, {1, 1, 4, 3});
  // data 3x3, indices [[1, 2, 0], [2, 0, 0]] along axis 0; -1 is the last row.
  Tensor y = f32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), j = make(DType::I32, {2, 3}, {1, -1, 0, 2, 0, 0});
  check_f32(run1("GatherElements", {}, {&y, &j}, f32t({2, 3})), {2, 3}, {4, 8, 3, 7, 2, 3});
  Tensor bad = make(DType::I64, {1, 1}, {2});
  CHECK_THROWS_WITH_AS(run1("GatherElements", {}, {&x, &bad}, f32t({1, 1})),
                       doctest::Contains("GatherElements: index 2 is out of range for axis 0 of size 2"), UserError);
}
}
