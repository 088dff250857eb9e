// tile_bands / tile_band_at: band counts, tile loops in the AST, legality,
// untiled members, multi-level matmul, marks, loop types and isolate
// options kept, refusals.
#include "tests/unit/polyhedral/transforms/transform_test_util.h"

#include "polyhedral/transforms/schedule/tile_bands.h"

using namespace polytest;
using namespace atl::poly;

namespace {

/// The names of the mark nodes of a schedule, in pre-order.
std::vector<std::string> mark_names(const isl::schedule &s) {
  std::vector<std::string> out;
  s.root().foreach_descendant_top_down([&](isl::schedule_node n) {
    if (n.isa<isl::schedule_node_mark>()) out.push_back(mark_id(n.as<isl::schedule_node_mark>()).name());
    return true;
  });
  return out;
}

std::vector<AstLoopType> loop_types(const isl::schedule_node_band &b) {
  std::vector<AstLoopType> out;
  for (unsigned m = 0; m < b.n_member(); ++m) out.push_back(member_ast_loop_type(b, static_cast<int>(m)));
  return out;
}

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("tile_band_at: a 2-member relu band becomes a tile band and a point band, still legal") {
  Scheduled s(one_node("Relu", {{"x", {40, 50}}}));
  auto before = collect_bands(s.schedule);
  REQUIRE(before.size() == 1);
  REQUIRE(before[0].n_member() == 2);
  isl::schedule t = tile_band_at(s.schedule, 0, {8, 16});
  auto after = collect_bands(t);
  REQUIRE(after.size() == 2);
  CHECK(after[0].n_member() == 2);
  CHECK(after[1].n_member() == 2);
  CHECK(after[0].permutable());
  CHECK(after[1].permutable());
  CHECK(after[0].member_get_coincident(0) == before[0].member_get_coincident(0));
  CHECK(after[1].member_get_coincident(1) == before[0].member_get_coincident(1));
  CHECK(s.legal(t));
  CHECK(count_fors(s.ast(s.schedule)) == 2);
  CHECK(count_fors(s.ast(t)) == 4);
}

TEST_CASE("tile_band_at: sizes 0 or >= the extent leave members untiled") {
  Scheduled s(one_node("Relu", {{"x", {40, 50}}}));
  CHECK(member_extent(collect_bands(s.schedule)[0], 0) == 40);
  CHECK(member_extent(collect_bands(s.schedule)[0], 1) == 50);
  isl::schedule same = tile_band_at(s.schedule, 0, {0, 50});
  CHECK(collect_bands(same).size() == 1);
  // Only the second member tiled: a 1-member tile band over a 2-member point band.
  isl::schedule t = tile_band_at(s.schedule, 0, {40, 7});
  auto after = collect_bands(t);
  REQUIRE(after.size() == 2);
  CHECK(after[0].n_member() == 1);
  CHECK(after[1].n_member() == 2);
  CHECK(after[0].permutable());
  CHECK(s.legal(t));
  CHECK(count_fors(s.ast(t)) == 3);
}

TEST_CASE("tile_bands: a list shorter than the band repeats its last size") {
  Scheduled s(one_node("Relu", {{"x", {20, 30}}}));
  isl::schedule t = tile_bands(s.schedule, TileOptions{{{4}}});
  auto after = collect_bands(t);
  REQUIRE(after.size() == 2);
  CHECK(after[0].n_member() == 2);
  CHECK(s.legal(t));
}

TEST_CASE("tile_bands: matmul tiled on three levels stays legal and adds three tile loop levels") {
  Scheduled s(one_node("MatMul", {{"A", {70, 50}}, {"B", {50, 60}}}));
  std::size_t bands = collect_bands(s.schedule).size();
  int tileable = 0;
  for (const auto &b : collect_bands(s.schedule)) tileable += b.n_member() == 1 || b.permutable();
  REQUIRE(tileable > 0);
  isl::schedule t = tile_bands(s.schedule, TileOptions{{{32}, {8}, {2}}});
  CHECK(collect_bands(t).size() == bands + 3 * static_cast<std::size_t>(tileable));
  CHECK(s.legal(t));
  int loops_before = count_fors(s.ast(s.schedule)), loops_after = count_fors(s.ast(t));
  CHECK(loops_after >= 4 * loops_before);
  // and it still computes the product
  ClusterResult r = compile(one_node("MatMul", {{"A", {70, 50}}, {"B", {50, 60}}}),
                            PolyOptions{"given", schedule_to_yaml(t)});
  CHECK(check_against_definitions(one_node("MatMul", {{"A", {70, 50}}, {"B", {50, 60}}}), r) < 1e-9);
}

TEST_CASE("tile_bands: the prefix sum's band of one member is strip-mined and stays legal") {
  Scheduled s(one_node("Compute", {{"A", {30}}}, {{"expr", "y0(i) = A(i)\ny0(i) += y0(i - 1) where i in 1:30"}}));
  isl::schedule t = tile_bands(s.schedule, TileOptions{{{4}}});
  CHECK(collect_bands(t).size() > collect_bands(s.schedule).size());
  CHECK(s.legal(t));
}

TEST_CASE("tile_band_at: refuses missing bands and negative sizes") {
  Scheduled s(one_node("Relu", {{"x", {4, 5}}}));
  CHECK_THROWS_WITH_AS(tile_band_at(s.schedule, 3, {2}), doctest::Contains("no band at position 3"), atl::UserError);
  CHECK_THROWS_WITH_AS(tile_band_at(s.schedule, 0, {-2}), doctest::Contains("negative"), atl::UserError);
}

TEST_CASE("tile_band_at: refuses a non-permutable band of several members") {
  Scheduled s(one_node("Relu", {{"x", {4, 5}}}));
  isl::schedule np = replace_band(s.schedule, 0,
                                  {BandSpec{collect_bands(s.schedule)[0].partial_schedule(), false, {false, false}}});
  REQUIRE_FALSE(collect_bands(np)[0].permutable());
  CHECK_THROWS_WITH_AS(tile_band_at(np, 0, {2}), doctest::Contains("not permutable"), atl::UserError);
  CHECK(collect_bands(tile_bands(np, TileOptions{{{2}}})).size() == 1);  // tile_bands skips it
}

TEST_CASE("tile_bands: a softmax tree with mark nodes is tiled, keeps its marks and still computes") {
  auto g = one_node("Softmax", {{"x", {6, 13}}}, {{"axis", 1}});
  Scheduled s(g);
  auto bands = collect_bands(s.schedule);
  REQUIRE(bands.size() >= 2);
  // A mark at the top of the tree and one above the last band.
  isl::schedule marked = s.schedule.root().child(0).insert_mark(isl::id(s.ctx, "top")).schedule();
  marked = collect_bands(marked).back().insert_mark(isl::id(s.ctx, "inner")).schedule();
  REQUIRE(mark_names(marked) == std::vector<std::string>{"top", "inner"});
  isl::schedule t = tile_bands(marked, TileOptions{{{4}, {2}}});
  CHECK(collect_bands(t).size() > bands.size());
  CHECK(mark_names(t) == std::vector<std::string>{"top", "inner"});
  CHECK(s.legal(t));
  // one band only, partially tiled
  isl::schedule p = tile_band_at(marked, static_cast<int>(bands.size()) - 1, {0, 5});
  CHECK(mark_names(p) == std::vector<std::string>{"top", "inner"});
  CHECK(s.legal(p));
  for (const isl::schedule &x : {t, p}) {
    ClusterResult r = compile(g, PolyOptions{"given", schedule_to_yaml(x)});
    CHECK(check_against_definitions(g, r) < 1e-9);
    CHECK(r.schedule_yaml.find("inner") != std::string::npos);
  }
}

TEST_CASE("tile_bands: a given YAML tree with a mark node between two bands is tiled") {
  auto g = one_node("Relu", {{"x", {12, 10}}});
  Scheduled s(g);
  REQUIRE(s.scop.statements.size() == 1);
  const std::string st = s.scop.statements[0].name;
  std::string tree = "{ domain: \"" + isl_text(s.scop.domain()) + "\", child: { schedule: \"[{ " + st +
                     "[a, b] -> [(a)] }]\", child: { mark: \"m\", child: { schedule: \"[{ " + st +
                     "[a, b] -> [(b)] }]\" } } } }";
  isl::schedule given(s.ctx, tree);
  isl::schedule t = tile_bands(given, TileOptions{{{5}}});
  CHECK(collect_bands(t).size() == 4);
  CHECK(mark_names(t) == std::vector<std::string>{"m"});
  CHECK(s.legal(t));
  CHECK(check_against_definitions(g, compile(g, PolyOptions{"given", schedule_to_yaml(t)})) < 1e-9);
}

TEST_CASE("tile_band_at: AST loop types follow their members into the tile and point bands") {
  auto g = one_node("Relu", {{"x", {6, 8}}});
  Scheduled s(g);
  auto b = collect_bands(s.schedule).at(0);
  REQUIRE(b.n_member() == 2);
  b = member_set_ast_loop_type(member_set_ast_loop_type(b, 0, AstLoopType::Atomic), 1, AstLoopType::Unroll);
  isl::schedule typed = b.schedule();
  // only member 1 tiled: the tile band has one member, of member 1's type
  auto partial = collect_bands(tile_band_at(typed, 0, {0, 4}));
  REQUIRE(partial.size() == 2);
  CHECK(loop_types(partial[0]) == std::vector<AstLoopType>{AstLoopType::Unroll});
  CHECK(loop_types(partial[1]) == std::vector<AstLoopType>{AstLoopType::Atomic, AstLoopType::Unroll});
  // both tiled (isl's tiling)
  auto full = collect_bands(tile_band_at(typed, 0, {2, 4}));
  REQUIRE(full.size() == 2);
  CHECK(loop_types(full[0]) == std::vector<AstLoopType>{AstLoopType::Atomic, AstLoopType::Unroll});
  CHECK(loop_types(full[1]) == std::vector<AstLoopType>{AstLoopType::Atomic, AstLoopType::Unroll});
  CHECK(check_against_definitions(g, compile(g, PolyOptions{"given", schedule_to_yaml(full[0].schedule())})) < 1e-9);
}

TEST_CASE("tile_band_at: an isolate option moves to the point band, the tile loops added to its outer tuple") {
  auto g = one_node("Relu", {{"x", {40, 50}}});
  Scheduled s(g);
  auto b = collect_bands(s.schedule).at(0);
  REQUIRE(b.n_member() == 2);
  isl::schedule iso =
      b.set_ast_build_options(isl::union_set(s.ctx, "{ isolate[[] -> [a, b]] : a < 16; separate[1] }")).schedule();
  auto partial = collect_bands(tile_band_at(iso, 0, {0, 8}));
  REQUIRE(partial.size() == 2);
  CHECK_FALSE(band_spec(partial[0]).isolate.has_value());
  REQUIRE(band_spec(partial[1]).isolate.has_value());
  CHECK(band_spec(partial[1]).isolate->is_equal(
      isl::set(s.ctx, "{ isolate[[t] -> [a, b]] : a < 16 and t = floor(b / 8) }")));
  CHECK(loop_types(partial[0]) == std::vector<AstLoopType>{AstLoopType::Separate});
  CHECK(loop_types(partial[1]) == std::vector<AstLoopType>{AstLoopType::Default, AstLoopType::Separate});
  auto full = collect_bands(tile_band_at(iso, 0, {4, 8}));
  REQUIRE(full.size() == 2);
  CHECK(band_spec(full[1]).isolate->is_equal(
      isl::set(s.ctx, "{ isolate[[t0, t1] -> [a, b]] : a < 16 and t0 = floor(a / 4) and t1 = floor(b / 8) }")));
  for (const auto &t : {partial[0].schedule(), full[0].schedule()}) {
    CHECK(s.legal(t));
    CHECK(check_against_definitions(g, compile(g, PolyOptions{"given", schedule_to_yaml(t)})) < 1e-9);
  }
}

TEST_CASE("tile_band_at: refuses a band above an isolate option; tile_bands leaves it") {
  Scheduled s(one_node("Relu", {{"x", {20, 30}}}));
  isl::schedule t = tile_band_at(s.schedule, 0, {4, 8});
  auto point = collect_bands(t).at(1);
  isl::schedule iso = point.set_ast_build_options(isl::union_set(s.ctx, "{ isolate[[t0, t1] -> [a, b]] : a < 8 }")).schedule();
  CHECK_THROWS_WITH_AS(tile_band_at(iso, 0, {2, 2}), doctest::Contains("isolate option"), atl::UserError);
  isl::schedule again = tile_bands(iso, TileOptions{{{2}}});
  CHECK(collect_bands(again).size() == 3);  // only the point band was tiled
  CHECK(s.legal(again));
}

TEST_CASE("replace_band: an empty list deletes the band and keeps the marks") {
  Scheduled s(one_node("Relu", {{"x", {4, 5}}}));
  isl::schedule marked = collect_bands(s.schedule).at(0).insert_mark(isl::id(s.ctx, "keep")).schedule();
  isl::schedule gone = replace_band(marked, 0, {});
  CHECK(collect_bands(gone).empty());
  CHECK(mark_names(gone) == std::vector<std::string>{"keep"});
}

}
