// tile_bands / tile_band_at: band counts, tile loops in the AST, legality,
// untiled members, multi-level matmul, refusals.
#include "tests/unit/polyhedral/transforms/transform_test_util.h"

#include "polyhedral/transforms/tile_bands.h"

using namespace polytest;
using namespace atl::poly;

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

}
