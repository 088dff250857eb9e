// permute_band: member order and flags, legality, AST loop order, marks,
// loop types and isolate options, refusals.
#include "tests/unit/polyhedral/transforms/transform_test_util.h"

#include "polyhedral/transforms/schedule/permute_band.h"
#include "polyhedral/transforms/schedule/tile_bands.h"

using namespace polytest;
using namespace atl::poly;

TEST_SUITE("polyhedral") {

TEST_CASE("permute_band: members and coincidence flags follow the permutation; legal") {
  Scheduled s(one_node("Relu", {{"x", {6, 7, 9}}}));
  auto b = collect_bands(s.schedule);
  REQUIRE(b.size() == 1);
  REQUIRE(b[0].n_member() == 3);
  isl::schedule p = permute_band(s.schedule, 0, {2, 0, 1});
  auto a = collect_bands(p);
  REQUIRE(a.size() == 1);
  isl::multi_union_pw_aff old = b[0].partial_schedule(), now = a[0].partial_schedule();
  CHECK(now.at(0).plain_is_equal(isl::multi_union_pw_aff(old.at(2))));
  CHECK(now.at(1).plain_is_equal(isl::multi_union_pw_aff(old.at(0))));
  CHECK(now.at(2).plain_is_equal(isl::multi_union_pw_aff(old.at(1))));
  CHECK(a[0].member_get_coincident(0) == b[0].member_get_coincident(2));
  CHECK(a[0].permutable());
  CHECK(s.legal(p));
  CHECK(member_extent(a[0], 0) == 9);
}

TEST_CASE("permute_band: the outer loop of a transpose-free matmul changes and results stay equal") {
  auto g = one_node("MatMul", {{"A", {5, 6}}, {"B", {6, 7}}});
  Scheduled s(g);
  int pos = -1;
  auto bands = collect_bands(s.schedule);
  for (std::size_t k = 0; k < bands.size(); ++k)
    if (bands[k].n_member() >= 2 && bands[k].permutable()) pos = static_cast<int>(k);
  REQUIRE(pos >= 0);
  std::vector<int> perm(bands[static_cast<std::size_t>(pos)].n_member());
  for (std::size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<int>(perm.size() - 1 - k);
  isl::schedule p = permute_band(s.schedule, pos, perm);
  CHECK(s.legal(p));
  CHECK_FALSE(p.map().is_equal(s.schedule.map()));
  ClusterResult r = compile(g, PolyOptions{"given", schedule_to_yaml(p)});
  CHECK(check_against_definitions(g, r) < 1e-9);
}

TEST_CASE("permute_band: after tiling, the point band can be permuted") {
  Scheduled s(one_node("Relu", {{"x", {20, 30}}}));
  isl::schedule t = permute_band(tile_band_at(s.schedule, 0, {4, 8}), 1, {1, 0});
  CHECK(collect_bands(t).size() == 2);
  CHECK(s.legal(t));
  CHECK(count_fors(s.ast(t)) == 4);
}

TEST_CASE("permute_band: refuses non-permutable bands and bad permutations") {
  Scheduled s(one_node("Relu", {{"x", {4, 5}}}));
  CHECK_THROWS_WITH_AS(permute_band(s.schedule, 0, {0, 0}), doctest::Contains("not a permutation"), atl::UserError);
  CHECK_THROWS_WITH_AS(permute_band(s.schedule, 0, {1}), doctest::Contains("not a permutation"), atl::UserError);
  CHECK_THROWS_WITH_AS(permute_band(s.schedule, 5, {1, 0}), doctest::Contains("no band"), atl::UserError);
  isl::schedule np = replace_band(s.schedule, 0,
                                  {BandSpec{collect_bands(s.schedule)[0].partial_schedule(), false, {false, false}}});
  CHECK_THROWS_WITH_AS(permute_band(np, 0, {1, 0}), doctest::Contains("not permutable"), atl::UserError);
  CHECK(s.legal(permute_band(np, 0, {0, 1})));  // the identity is always fine
}

TEST_CASE("replace_band: copying a sequence tree keeps its schedule") {
  Scheduled s(one_node("Softmax", {{"x", {3, 5}}}, {{"axis", 1}}));
  auto bands = collect_bands(s.schedule);
  REQUIRE_FALSE(bands.empty());
  auto b = bands.back();
  std::vector<bool> coinc;
  for (unsigned m = 0; m < b.n_member(); ++m) coinc.push_back(b.member_get_coincident(static_cast<int>(m)));
  isl::schedule copy = replace_band(s.schedule, static_cast<int>(bands.size() - 1),
                                    {BandSpec{b.partial_schedule(), b.permutable(), coinc}});
  CHECK(copy.map().is_equal(s.schedule.map()));
  CHECK(collect_bands(copy).size() == bands.size());
}

TEST_CASE("permute_band: marks stay, loop types and isolate dimensions follow their members; still computes") {
  auto g = one_node("Relu", {{"x", {6, 7, 5}}});
  Scheduled s(g);
  auto b = collect_bands(s.schedule).at(0);
  REQUIRE(b.n_member() == 3);
  b = b.set_ast_build_options(isl::union_set(s.ctx, "{ isolate[[] -> [a, b, c]] : a < 3 }"));
  b = member_set_ast_loop_type(b, 0, AstLoopType::Atomic);
  b = member_set_ast_loop_type(b, 2, AstLoopType::Unroll);
  isl::schedule marked = b.insert_mark(isl::id(s.ctx, "kept")).schedule();
  isl::schedule p = permute_band(marked, 0, {2, 0, 1});
  REQUIRE(p.root().child(0).isa<isl::schedule_node_mark>());
  CHECK(mark_id(p.root().child(0).as<isl::schedule_node_mark>()).name() == "kept");
  auto a = collect_bands(p).at(0);
  CHECK(member_ast_loop_type(a, 0) == AstLoopType::Unroll);
  CHECK(member_ast_loop_type(a, 1) == AstLoopType::Atomic);
  CHECK(member_ast_loop_type(a, 2) == AstLoopType::Default);
  REQUIRE(band_spec(a).isolate.has_value());
  CHECK(band_spec(a).isolate->is_equal(isl::set(s.ctx, "{ isolate[[] -> [c, a, b]] : a < 3 }")));
  CHECK(s.legal(p));
  CHECK(check_against_definitions(g, compile(g, PolyOptions{"given", schedule_to_yaml(p)})) < 1e-9);
}

TEST_CASE("permute_band: a matmul tree with marks above and below the permuted band still computes") {
  auto g = one_node("MatMul", {{"A", {5, 6}}, {"B", {6, 7}}});
  Scheduled s(g);
  auto bands = collect_bands(s.schedule);
  int pos = -1;
  for (std::size_t k = 0; k < bands.size(); ++k)
    if (bands[k].n_member() >= 2 && bands[k].permutable()) pos = static_cast<int>(k);
  REQUIRE(pos >= 0);
  isl::schedule marked = collect_bands(s.schedule).back().insert_mark(isl::id(s.ctx, "below")).schedule();
  marked = collect_bands(marked)[static_cast<std::size_t>(pos)].insert_mark(isl::id(s.ctx, "above")).schedule();
  std::vector<int> perm(collect_bands(marked)[static_cast<std::size_t>(pos)].n_member());
  for (std::size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<int>(perm.size() - 1 - k);
  isl::schedule p = permute_band(marked, pos, perm);
  std::string yaml = schedule_to_yaml(p);
  CHECK(yaml.find("above") != std::string::npos);
  CHECK(yaml.find("below") != std::string::npos);
  CHECK_FALSE(p.map().is_equal(marked.map()));
  CHECK(s.legal(p));
  CHECK(check_against_definitions(g, compile(g, PolyOptions{"given", yaml})) < 1e-9);
}

}
