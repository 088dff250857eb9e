// SCoP construction: domains, accesses (guarded, indirect), arrays and
// parametric domains of registry operators.
#include "poly_test_util.h"

#include "polyhedral/isl/isl_context.h"
#include "polyhedral/scop/scop.h"

using namespace polytest;
using namespace atl::poly;

TEST_SUITE("polyhedral") {

TEST_CASE("matmul: domain over i, j, k and accesses A(i,k), B(k,j), C(i,j)") {
  auto g = one_node("MatMul", {{"A", {3, 5}}, {"B", {5, 7}}});
  IslContext ctx;
  Scop s = build_scop(ctx, g, g.order());
  REQUIRE(s.statements.size() == 2);
  CHECK(s.statements[0].name == "n0_0_init");
  const ScopStatement &st = s.statements[1];
  CHECK(st.name == "n0_0");
  CHECK(st.domain.is_equal(isl::set(ctx, "{ n0_0[i, j, k] : 0 <= i < 3 and 0 <= j < 7 and 0 <= k < 5 }")));
  CHECK(st.write.relation.is_equal(isl::map(ctx, "{ n0_0[i, j, k] -> y0[i, j] : 0 <= i < 3 and 0 <= j < 7 and 0 <= k < 5 }")));
  isl::union_map reads = isl::union_map(ctx, "{ }");
  for (const auto &r : st.reads) reads = reads.unite(isl::union_map(r.relation));
  CHECK(reads.is_equal(isl::union_map(ctx, "{ n0_0[i, j, k] -> A[i, k] : 0 <= i < 3 and 0 <= j < 7 and 0 <= k < 5; "
                                           "n0_0[i, j, k] -> B[k, j] : 0 <= i < 3 and 0 <= j < 7 and 0 <= k < 5 }")));
  CHECK(st.op == atl::compute::AssignOp::Add);
  REQUIRE(s.arrays.size() == 3);
  CHECK(s.array("y0")->array.role == atl::KernelArray::Role::Output);
  CHECK(s.array("A")->kind == ScopArray::Kind::Input);
}

TEST_CASE("conv with padding: the padded read is guarded to the in-bounds part") {
  auto g = one_node("Conv", {{"x", {1, 1, 4, 4}}, {"w", {1, 1, 3, 3}}}, {{"pads", {1, 1, 1, 1}}});
  IslContext ctx;
  Scop s = build_scop(ctx, g, g.order());
  const ScopAccess *xread = nullptr;
  for (const auto &st : s.statements)
    for (const auto &r : st.reads)
      if (r.array == "x") xread = &r;
  REQUIRE(xread);
  CHECK(xread->guarded);
  // Every element read is inside x's extent, and the corners are read.
  isl::set range = xread->relation.range();
  CHECK(range.is_subset(s.array("x")->extent));
  CHECK(range.is_equal(s.array("x")->extent));
}

TEST_CASE("softmax: several statements over temporaries of the node") {
  auto g = one_node("Softmax", {{"x", {2, 5}}}, {{"axis", 1}});
  IslContext ctx;
  Scop s = build_scop(ctx, g, g.order());
  CHECK(s.statements.size() >= 3);
  int temps = 0;
  for (const auto &a : s.arrays) temps += a.kind == ScopArray::Kind::NodeInternal;
  CHECK(temps >= 1);
  for (const auto &st : s.statements) CHECK(st.name.rfind("n0_", 0) == 0);
}

TEST_CASE("concat: each input's statement writes its slice of the output") {
  auto g = one_node("Concat", {{"a", {2, 3}}, {"b", {2, 4}}}, {{"axis", 1}});
  IslContext ctx;
  Scop s = build_scop(ctx, g, g.order());
  isl::union_set written = isl::union_set(ctx, "{ }");
  for (const auto &st : s.statements) written = written.unite(isl::union_set(st.write.relation.range()));
  CHECK(written.is_equal(isl::union_set(ctx, "{ y0[i, j] : 0 <= i < 2 and 0 <= j < 7 }")));
}

TEST_CASE("gather: the indirect subscript reads the whole axis") {
  auto g = one_node("Gather", {{"data", {5, 3}}, {"idx", {2}, DType::I64, std::vector<double>{4, 0}}}, {{"axis", 0}});
  IslContext ctx;
  Scop s = build_scop(ctx, g, g.order());
  const ScopAccess *dread = nullptr;
  for (const auto &st : s.statements)
    for (const auto &r : st.reads)
      if (r.array == "data") dread = &r;
  REQUIRE(dread);
  CHECK(dread->indirect);
  CHECK(dread->relation.range().is_equal(isl::set(ctx, "{ data[a, b] : 0 <= a < 5 and 0 <= b < 3 }")));
}

TEST_CASE("symbolic N gives a parametric domain with the range as context") {
  auto g = one_node("Relu", {{"x", {Dim::sym("N"), 3}}}, json::object(), 1, {{"N", {1, 64}}});
  IslContext ctx;
  Scop s = build_scop(ctx, g, g.order());
  REQUIRE(s.params == std::vector<std::string>{"N"});
  REQUIRE(s.statements.size() == 1);
  CHECK(s.statements[0].domain.is_equal(
      isl::set(ctx, "[N] -> { n0_0[i, j] : 0 <= i < N and 0 <= j < 3 and 1 <= N <= 64 }")));
  CHECK(s.context.is_equal(isl::set(ctx, "[N] -> { : 1 <= N <= 64 }")));
}

TEST_CASE("print_scop names statements, arrays and bodies") {
  auto g = one_node("MatMul", {{"A", {3, 5}}, {"B", {5, 7}}});
  IslContext ctx;
  Scop s = build_scop(ctx, g, g.order());
  std::ostringstream os;
  print_scop(os, s);
  CHECK(os.str().find("statement n0_0_init") != std::string::npos);
  CHECK(os.str().find("array A: f32[3, 5] input") != std::string::npos);
  CHECK(os.str().find("+=") != std::string::npos);
}

}
