// Tests of widen_accumulators: which f16/bf16 reductions accumulate in f32, and that they then sum exactly.
#include "graph/compute/ast.h"
#include "graph/compute/compute.h"
#include "graph/compute/widen_accumulators.h"

#include <doctest/doctest.h>

using namespace atl;
using namespace atl::compute;

TEST_SUITE("graph") {
TEST_CASE("widen_accumulators: reductions into f16/bf16 outputs reduce into an f32 temporary") {
  auto p = parse("c(i) +=! a(i, k)");
  auto w = widen_accumulators(p, {{"c", {"2"}}});
  CHECK(print(*w) == "c_acc(i) +=! a(i, k) where i in 0:2\nc(i) = c_acc(i) where i in 0:2\n");
  // The in-place update after it (ReduceMean) follows the accumulator; constants in the subscripts are kept.
  CHECK(print(*widen_accumulators(parse("c(i, 0) +=! a(i, k)\nc(i, 0) = c(i, 0) / 512"), {{"c", {"N", "1"}}})) ==
        "c_acc(i, 0) +=! a(i, k) where i in 0:N\nc_acc(i, 0) = c_acc(i, 0) / 512\nc(i, 0) = c_acc(i, 0) where i in 0:N\n");
  // Left unchanged: f32 outputs, non-initialising reductions, outputs read before or elsewhere, other writers.
  CHECK(widen_accumulators(p, {}) == p);
  CHECK(widen_accumulators(p, {{"d", {"2"}}}) == p);
  auto acc = parse("c(i) += a(i, k)");
  CHECK(widen_accumulators(acc, {{"c", {"2"}}}) == acc);
  auto read_before = parse("t(i) = c(i)\nc(i) +=! a(i, k)");
  CHECK(widen_accumulators(read_before, {{"c", {"2"}}}) == read_before);
  auto shifted = parse("c(i) +=! a(i, k)\nd(i) = c(i + 1) where i in 0:3");
  CHECK(widen_accumulators(shifted, {{"c", {"2"}}}) == shifted);
  auto two = parse("c(i) +=! a(i, k)\nc(i) max=! a(i, k)");
  CHECK(widen_accumulators(two, {{"c", {"2"}}}) == two);

  // 2048 ones into bf16: 2048 exactly (a bf16 accumulator stops at 256).
  Signature s;
  s.inputs["a"] = {TensorRole::Input, DType::BF16, {2, 2048}};
  s.outputs = {"c"};
  Tensor a(DType::BF16, {2, 2048});
  for (double &v : a.data) v = 1;
  for (bool wide : {false, true}) {
    auto prog = wide ? widen_accumulators(p, {{"c", {"2"}}}) : p;
    Analysis an = analyze(*prog, s);
    Tensor c = evaluate(*prog, an, {{"a", &a}}).at("c");
    CHECK(c.get(0) == (wide ? 2048 : 256));
  }
}
}
