// Reference MatMul (1-D promotion, batch broadcasting) and Gemm (alpha, beta,
// transposes, broadcast C), worked by hand.
#include "tests/unit/src/reference/reference_test_util.h"

using namespace atl;
using namespace atl::reference::test;
using nlohmann::json;

TEST_SUITE("src") {
TEST_CASE("reference MatMul 2x3 by 3x2") {
  Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6}), b = f32({3, 2}, {7, 8, 9, 10, 11, 12});
  check_f32(run1("MatMul", {}, {&a, &b}, f32t({2, 2})), {2, 2}, {58, 64, 139, 154});
}

TEST_CASE("reference MatMul promotes 1-D operands and removes the added dim") {
  Tensor u = f32({3}, {1, 2, 3}), v = f32({3}, {4, 5, 6});
  check_f32(run1("MatMul", {}, {&u, &v}, f32t({})), {}, {32});
  Tensor w = f32({2}, {1, 2}), m = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  check_f32(run1("MatMul", {}, {&w, &m}, f32t({3})), {3}, {9, 12, 15});
  Tensor sq = f32({2, 2}, {1, 2, 3, 4}), ones = f32({2}, {1, 1});
  check_f32(run1("MatMul", {}, {&sq, &ones}, f32t({2})), {2}, {3, 7});
  // A batched matrix times a vector: [2, 2, 2] x [2] -> [2, 2].
  Tensor bm = f32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  check_f32(run1("MatMul", {}, {&bm, &ones}, f32t({2, 2})), {2, 2}, {3, 7, 11, 15});
}

TEST_CASE("reference MatMul broadcasts batch dims [2,1] against [3]") {
  // A[a] = (a + 1) * I, B[b] = [[b+1, 1], [0, b+1]]: out[a][b] = (a + 1) * B[b].
  Tensor A = f32({2, 1, 2, 2}, {1, 0, 0, 1, 2, 0, 0, 2});
  Tensor B = f32({3, 2, 2}, {1, 1, 0, 1, 2, 1, 0, 2, 3, 1, 0, 3});
  check_f32(run1("MatMul", {}, {&A, &B}, f32t({2, 3, 2, 2})), {2, 3, 2, 2},
            {1, 1, 0, 1, 2, 1, 0, 2, 3, 1, 0, 3, 2, 2, 0, 2, 4, 2, 0, 4, 6, 2, 0, 6});
}

TEST_CASE("reference MatMul on i32 and its shape errors") {
  Tensor a = make(DType::I32, {1, 2}, {3, -4}), b = make(DType::I32, {2, 1}, {5, 6});
  check_tensor(run1("MatMul", {}, {&a, &b}, type(DType::I32, {1, 1})), DType::I32, {1, 1}, {-9});
  Tensor c = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK_THROWS_WITH_AS(run1("MatMul", {}, {&c, &c}, f32t({2, 3})), doctest::Contains("MatMul: inner dimensions differ"),
                       UserError);
  Tensor s = f32({}, {1});
  CHECK_THROWS_WITH_AS(run1("MatMul", {}, {&s, &c}, f32t({2, 3})), doctest::Contains("rank"), UserError);
}

TEST_CASE("reference Gemm with alpha, beta and a row-broadcast C") {
  Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6}), b = f32({3, 2}, {7, 8, 9, 10, 11, 12}), c = f32({2}, {1, 2});
  check_f32(run1("Gemm", {{"alpha", 2.0}, {"beta", 0.5}}, {&a, &b, &c}, f32t({2, 2})), {2, 2},
            {116.5, 129, 278.5, 309});
}

TEST_CASE("reference Gemm with transA, transB and a column C") {
  Tensor at = f32({3, 2}, {1, 4, 2, 5, 3, 6}), bt = f32({2, 3}, {7, 9, 11, 8, 10, 12}), c = f32({2, 1}, {10, 20});
  check_f32(run1("Gemm", {{"transA", 1}, {"transB", 1}}, {&at, &bt, &c}, f32t({2, 2})), {2, 2}, {68, 74, 159, 174});
}

TEST_CASE("reference Gemm without C and with a scalar C") {
  Tensor a = f32({1, 2}, {1, 2}), b = f32({2, 2}, {1, 0, 0, 1});
  check_f32(run1("Gemm", {}, {&a, &b}, f32t({1, 2})), {1, 2}, {1, 2});
  check_f32(run1("Gemm", {{"beta", 3.0}}, {&a, &b, nullptr}, f32t({1, 2})), {1, 2}, {1, 2});
  Tensor s = f32({}, {5});
  check_f32(run1("Gemm", {{"beta", 2.0}}, {&a, &b, &s}, f32t({1, 2})), {1, 2}, {11, 12});
  Tensor bad = f32({3}, {1, 2, 3});
  CHECK_THROWS_WITH_AS(run1("Gemm", {}, {&a, &b, &bad}, f32t({1, 2})), doctest::Contains("Gemm:"), UserError);
}
}
