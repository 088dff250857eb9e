// The wrappers of polyhedral/isl/isl_context.h that read what isl/cpp.h
// cannot: names, coefficients, lifted constraints, mark ids, band loop
// types, node deletion and anchoring; isl errors become isl::exception.
#include "polyhedral/isl/isl_context.h"

#include <doctest/doctest.h>

using namespace atl::poly;

namespace {

/// Evaluates row . (1, x).
long eval_row(const std::vector<isl::val> &row, const std::vector<long> &x) {
  long sum = row.at(0).get_num_si();
  for (std::size_t k = 0; k < x.size(); ++k) sum += row.at(k + 1).get_num_si() * x[k];
  return sum;
}

/// True when every constraint holds at x.
bool satisfies(const ConstraintRows &rows, const std::vector<long> &x) {
  for (const auto &r : rows.equalities)
    if (eval_row(r, x) != 0) return false;
  for (const auto &r : rows.inequalities)
    if (eval_row(r, x) < 0) return false;
  return true;
}

const char *kTree = R"({ domain: "{ S[i, j] : 0 <= i < 10 and 0 <= j < 20 }",
  child: { mark: "outer", child: { schedule: "[{ S[i, j] -> [(i)] }, { S[i, j] -> [(j)] }]", permutable: 1 } } })";

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("isl wrappers: parameter and dimension names, tuple names, involved dimensions") {
  IslContext ctx;
  isl::set s(ctx, "[N, M] -> { S[i, j] : 0 <= i < N and 0 <= j < M }");
  CHECK(param_names(s.space()) == std::vector<std::string>{"N", "M"});
  CHECK(set_dim_names(s) == std::vector<std::string>{"i", "j"});
  CHECK(set_dim_names(isl::set(ctx, "{ [a, 3] }")).at(1).empty());
  CHECK_FALSE(is_params(s));
  CHECK(is_params(isl::set(ctx, "[N] -> { : N > 2 }")));
  CHECK(tuple_name(s) == "S");
  isl::map m(ctx, "{ S[i, j, k] -> A[i, k] }");
  CHECK(domain_tuple_name(m) == "S");
  CHECK(range_tuple_name(m) == "A");
  CHECK(range_tuple_name(isl::map(ctx, "{ S[i] -> [i] }")).empty());
  CHECK(involves_in_dim(m, 0));
  CHECK_FALSE(involves_in_dim(m, 1));
  CHECK(involves_in_dim(m, 2));
}

TEST_CASE("isl wrappers: affine coefficients, constants and divisions") {
  IslContext ctx;
  isl::aff a(ctx, "[N] -> { S[i, j] -> [(2 * i - j + 3 * N - 7)] }");
  AffCoefficients c = aff_coefficients(a);
  REQUIRE(c.in.size() == 2);
  REQUIRE(c.params.size() == 1);
  CHECK(c.in[0].get_num_si() == 2);
  CHECK(c.in[1].get_num_si() == -1);
  CHECK(c.params[0].get_num_si() == 3);
  CHECK(c.constant.get_num_si() == -7);
  CHECK_FALSE(c.has_divs);
  CHECK(aff_coefficients(isl::aff(ctx, "{ S[i] -> [(floor(i / 2))] }")).has_divs);
  CHECK_FALSE(aff_coefficients(isl::aff(ctx, "{ S[i] -> [(i / 2)] }")).in.at(0).is_int());  // rational
}

TEST_CASE("isl wrappers: lifted constraints of a basic map with an existential") {
  IslContext ctx;
  // j = 2 i with i a multiple of 3: the existential becomes a third column.
  isl::basic_map m(ctx, "[N] -> { S[i] -> T[j] : j = 2i and 0 <= i < N and exists (e : i = 3e) }");
  ConstraintRows rows = lifted_constraints(m);
  CHECK(rows.n_param == 1);
  REQUIRE(rows.n_set == 3);  // i, j, e
  for (const auto &r : rows.equalities) CHECK(r.size() == 5u);
  for (const auto &r : rows.inequalities) CHECK(r.size() == 5u);
  // (N, i, j, e): points of the map and points outside it.
  CHECK(satisfies(rows, {10, 3, 6, 1}));
  CHECK(satisfies(rows, {10, 0, 0, 0}));
  CHECK_FALSE(satisfies(rows, {10, 3, 5, 1}));   // j != 2i
  CHECK_FALSE(satisfies(rows, {10, 12, 24, 4})); // i >= N
  CHECK_FALSE(satisfies(rows, {10, 2, 4, 1}));   // i != 3e
}

TEST_CASE("isl wrappers: mark ids, band loop types and isolate loop types") {
  IslContext ctx;
  isl::schedule s(ctx, kTree);
  isl::schedule_node mark = s.root().child(0);
  REQUIRE(mark.isa<isl::schedule_node_mark>());
  CHECK(mark_id(mark.as<isl::schedule_node_mark>()).name() == "outer");
  auto band = mark.child(0).as<isl::schedule_node_band>();
  CHECK(member_ast_loop_type(band, 0) == AstLoopType::Default);
  band = member_set_ast_loop_type(band, 1, AstLoopType::Unroll);
  band = member_set_ast_loop_type(band, 0, AstLoopType::Separate);
  CHECK(member_ast_loop_type(band, 0) == AstLoopType::Separate);
  CHECK(member_ast_loop_type(band, 1) == AstLoopType::Unroll);
  band = member_set_isolate_ast_loop_type(band, 1, AstLoopType::Atomic);
  CHECK(member_isolate_ast_loop_type(band, 1) == AstLoopType::Atomic);
  CHECK(member_isolate_ast_loop_type(band, 0) == AstLoopType::Default);
  // the types are in the tree's text and read back
  isl::schedule back(ctx, schedule_to_yaml(band.schedule()));
  auto band2 = back.root().child(0).child(0).as<isl::schedule_node_band>();
  CHECK(member_ast_loop_type(band2, 1) == AstLoopType::Unroll);
  CHECK(member_ast_loop_type(band2, 0) == AstLoopType::Separate);
}

TEST_CASE("isl wrappers: deleting a node and anchored subtrees") {
  IslContext ctx;
  isl::schedule s(ctx, kTree);
  isl::schedule_node band = s.root().child(0).child(0);
  CHECK_FALSE(is_subtree_anchored(band));
  isl::schedule_node leaf = delete_node(band);
  CHECK(leaf.isa<isl::schedule_node_leaf>());
  CHECK(leaf.parent().isa<isl::schedule_node_mark>());
  isl::schedule_node no_mark = delete_node(s.root().child(0));
  CHECK(no_mark.isa<isl::schedule_node_band>());
  auto isolated = band.as<isl::schedule_node_band>().set_ast_build_options(
      isl::union_set(ctx, "{ isolate[[] -> [a, b]] : a < 4 }"));
  CHECK(is_subtree_anchored(isolated));
  CHECK(is_subtree_anchored(isolated.parent()));
  CHECK_THROWS_AS(delete_node(isolated), isl::exception);  // isl: a band with an anchored subtree
  CHECK(delete_node(isolated.parent()).isa<isl::schedule_node_band>());  // a mark may go
}

TEST_CASE("isl wrappers: isl errors become isl::exception") {
  IslContext ctx;
  isl::schedule s(ctx, kTree);
  auto band = s.root().child(0).child(0).as<isl::schedule_node_band>();
  CHECK_THROWS_AS(member_ast_loop_type(band, 5), isl::exception);
  CHECK_THROWS_AS(member_set_ast_loop_type(band, -1, AstLoopType::Atomic), isl::exception);
  CHECK_THROWS_AS(delete_node(s.root()), isl::exception);
  // the context is usable afterwards
  CHECK(member_ast_loop_type(band, 0) == AstLoopType::Default);
}
}
