// tile_transpose: a Transpose whose output rows read more input lines than L1 holds runs in 32 x 32 blocks (other
// dimensions outermost); the copies it leaves alone; random targets and odd sizes equal to the reference.
#include "polyhedral/compile_cluster.h"
#include "tests/unit/polyhedral/transforms/random_variants.h"
#include "tests/unit/src/ops/op_cases.h"

#include <doctest/doctest.h>


using namespace atl;

namespace {

test::Case transpose(Shape s, std::vector<int> perm) {
  return test::Case{"Transpose", {test::In{std::move(s)}}, {{"perm", perm}}};
}

poly::ClusterResult compile_case(const test::Case &c) {
  Graph g = test::make_case_graph(c, "t", "tr");
  poly::PolyOptions po;
  po.target = polytest::avx2_target();
  return poly::compile_cluster(g, g.order(), po);
}

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("tile_transpose: a 2-D Transpose runs in 32 x 32 blocks, partial ones at the edges") {
  poly::ClusterResult r = compile_case(transpose({300, 257}, {1, 0}));
  CAPTURE(r.ast_text);
  CHECK(r.stats["transposes_tiled"] == 1);
  CHECK(r.ast_text.find("c0 += 32") != std::string::npos);
  CHECK(r.ast_text.find("c1 += 32") != std::string::npos);
  CHECK(r.stats["loops_vectorized"] >= 1);
}

TEST_CASE("tile_transpose: other dimensions stay outermost, above the blocks") {
  // [3, 290, 70] -> [3, 70, 290]: an output row reads 290 lines.
  poly::ClusterResult r = compile_case(transpose({3, 290, 70}, {0, 2, 1}));
  CAPTURE(r.ast_text);
  CHECK(r.stats["transposes_tiled"] == 1);
  const std::size_t batch = r.ast_text.find("for (c0 = 0; (c0 <= 2); c0 += 1)");
  const std::size_t block = r.ast_text.find("+= 32");
  CHECK(batch != std::string::npos);
  CHECK(batch < block);
}

TEST_CASE("tile_transpose leaves alone rows whose input lines fit in L1, copies along one loop, and non-copies") {
  // BERT's keys per head: an output row reads 64 lines.
  CHECK(compile_case(transpose({12, 64, 64}, {0, 2, 1})).stats.count("transposes_tiled") == 0);
  // The last dimension stays last: the write and the read run along one loop.
  CHECK(compile_case(transpose({300, 40, 257}, {1, 0, 2})).stats.count("transposes_tiled") == 0);
  CHECK(compile_case(test::Case{"Relu", {test::In{{300, 257}}}}).stats.count("transposes_tiled") == 0);
}

TEST_CASE("tile_transpose: random targets, odd sizes, JIT and C equal the reference") {
  const unsigned base_seed = 7301;
  std::vector<Graph> graphs;
  std::vector<std::string> names;
  for (const test::Case &c : {transpose({300, 257}, {1, 0}), transpose({2, 263, 97}, {0, 2, 1}),
                              transpose({259, 3, 70}, {1, 2, 0}), transpose({65, 290}, {1, 0})}) {
    graphs.push_back(test::make_case_graph(c, "t" + std::to_string(graphs.size()), "n" + std::to_string(graphs.size())));
    names.push_back(test::describe_case(c));
  }
  int tiled = polytest::sweep_variants(graphs, names, base_seed, "tt", polytest::avx2_target(), "avx2", "transposes_tiled");
  CHECK(tiled >= 6);
}

}  // TEST_SUITE
