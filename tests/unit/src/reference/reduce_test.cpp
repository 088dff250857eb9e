// Reference reductions: axes, keepdims, noop_with_empty_axes, worked by hand;
// ArgMax and ArgMin.
#include "tests/unit/src/reference/reference_test_util.h"

using namespace atl;
using namespace atl::reference::test;
using nlohmann::json;

TEST_SUITE("src") {
// X = [[1, 2, 3], [4, 5, 6]].
TEST_CASE("reference ReduceSum over one axis, with and without keepdims") {
  Tensor x = iota({2, 3}, 1);
  check_f32(run1("ReduceSum", {{"axes", {1}}}, {&x, nullptr}, f32t({2, 1})), {2, 1}, {6, 15});
  check_f32(run1("ReduceSum", {{"axes", {1}}, {"keepdims", 0}}, {&x}, f32t({2})), {2}, {6, 15});
  Tensor y = iota({2, 2, 2}, 1);
  check_f32(run1("ReduceSum", {{"axes", {1}}}, {&y}, f32t({2, 1, 2})), {2, 1, 2}, {4, 6, 12, 14});
}

TEST_CASE("reference ReduceMean with no axes reduces everything") {
  Tensor x = iota({2, 3}, 1);
  check_f32(run1("ReduceMean", {}, {&x}, f32t({1, 1})), {1, 1}, {3.5});
  check_f32(run1("ReduceMean", {{"axes", json::array()}, {"keepdims", 0}}, {&x}, f32t({})), {}, {3.5});
}

TEST_CASE("reference ReduceMax, ReduceMin and ReduceProd") {
  Tensor x = iota({2, 3}, 1);
  check_f32(run1("ReduceMax", {{"axes", {0}}}, {&x}, f32t({1, 3})), {1, 3}, {4, 5, 6});
  check_f32(run1("ReduceMin", {{"axes", {-1}}, {"keepdims", 0}}, {&x}, f32t({2})), {2}, {1, 4});
  check_f32(run1("ReduceProd", {{"axes", {0, 1}}, {"keepdims", 0}}, {&x}, f32t({})), {}, {720});
  Tensor n = f32({2}, {-5, -7});
  check_f32(run1("ReduceMax", {}, {&n}, f32t({1})), {1}, {-5});
  check_f32(run1("ReduceMin", {}, {&n}, f32t({1})), {1}, {-7});
}

TEST_CASE("reference ArgMax and ArgMin: first or last index, NaN first") {
  Tensor x = f32({2, 3}, {2, 5, 5, 7, 1, 7});
  auto i64 = [](Shape s) { return type(DType::I64, s); };
  check_tensor(run1("ArgMax", {}, {&x}, i64({1, 3})), DType::I64, {1, 3}, {1, 0, 1});
  check_tensor(run1("ArgMax", {{"axis", 1}, {"keepdims", 0}}, {&x}, i64({2})), DType::I64, {2}, {1, 0});
  check_tensor(run1("ArgMax", {{"axis", -1}, {"select_last_index", 1}}, {&x}, i64({2, 1})), DType::I64, {2, 1}, {2, 2});
  check_tensor(run1("ArgMin", {{"axis", 1}}, {&x}, i64({2, 1})), DType::I64, {2, 1}, {0, 1});
  Tensor t = make(DType::I32, {4}, {3, -1, 3, -1});
  check_tensor(run1("ArgMin", {{"select_last_index", 1}, {"keepdims", 0}}, {&t}, i64({})), DType::I64, {}, {3});
  check_tensor(run1("ArgMax", {}, {&t}, i64({1})), DType::I64, {1}, {0});
  Tensor n = f32({4}, {1, NAN, 9, NAN});
  check_tensor(run1("ArgMax", {}, {&n}, i64({1})), DType::I64, {1}, {1});
  check_tensor(run1("ArgMin", {{"select_last_index", 1}}, {&n}, i64({1})), DType::I64, {1}, {3});
}

TEST_CASE("reference reductions: noop_with_empty_axes and bad axes") {
  Tensor x = iota({2, 3}, 1);
  check_f32(run1("ReduceSum", {{"noop_with_empty_axes", 1}}, {&x}, f32t({2, 3})), {2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK_THROWS_WITH_AS(run1("ReduceSum", {{"axes", {1, -1}}}, {&x}, f32t({2, 1})), doctest::Contains("twice"),
                       UserError);
  CHECK_THROWS_WITH_AS(run1("ReduceSum", {{"axes", {2}}}, {&x}, f32t({2, 1})), doctest::Contains("out of range"),
                       UserError);
}
}
