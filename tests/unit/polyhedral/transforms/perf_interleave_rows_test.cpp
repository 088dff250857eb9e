// interleave_rows: the tree it builds for short-row Softmax kernels, the shapes it leaves alone, and random row-wise
// kernels whose JIT and C code equal the reference.
#include "src/frontend/batch.h"

#include "polyhedral/compile_cluster.h"
#include "polyhedral/transforms/schedule/interleave_rows.h"
#include "tests/unit/polyhedral/transforms/random_variants.h"
#include "tests/unit/src/ops/op_cases.h"

#include <doctest/doctest.h>

#include <random>
#include <sstream>

using namespace atl;

namespace {

test::In f(Shape s) { return test::In{std::move(s)}; }

poly::ClusterResult compile(const test::Case &c, const poly::PolyOptions &po) {
  Graph g = test::make_case_graph(c, "g", "n");
  return poly::compile_cluster(g, g.order(), po);
}

/// Loop-AST lines that open a loop marked "unroll" (the mark's comment precedes it).
int unrolled_loops(const std::string &ast) {
  std::istringstream in(ast);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.find("// unroll") != std::string::npos ? 1 : 0;
  return n;
}

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("interleave_rows: a Softmax over short rows runs four rows side by side in each of its phases") {
  poly::PolyOptions po;
  po.target = polytest::avx512_target();
  poly::ClusterResult r = compile({"Softmax", {f({3, 8, 64})}, {{"axis", -1}}}, po);
  CHECK(r.stats["rows_interleaved"] == 4);
  CHECK(r.stats.count("row_interleavings_rejected") == 0);
  // isl shifts the exp-and-sum into the max's nest; the phases are cut
  // apart again, so the row's three nests (max, exp and sum, division) are
  // each a loop over the tile's four rows, the exp's loop from 0 again.
  CHECK(r.stats["row_phases_split"] == 1);
  CHECK(unrolled_loops(r.ast_text) == 3);
  CHECK(r.ast_text.find("- 63") == std::string::npos);
  CHECK(r.ast_text.find("((4 * c1) + 3)") != std::string::npos);
  CHECK(r.schedule_yaml.find("[(floor((x1)/4))]") != std::string::npos);
  // Six rows: four do not divide them, two rows a tile.
  poly::ClusterResult six = compile({"Softmax", {f({3, 6, 64})}, {{"axis", -1}}}, po);
  CHECK(six.stats["rows_interleaved"] == 2);
  CHECK(six.ast_text.find("((2 * c1) + 1)") != std::string::npos);
}

TEST_CASE("interleave_rows: odd row counts, long rows, and untiled compiles are left alone") {
  poly::PolyOptions po;
  po.target = polytest::avx512_target();
  CHECK(compile({"Softmax", {f({3, 7, 64})}, {{"axis", -1}}}, po).stats.count("rows_interleaved") == 0);
  CHECK(compile({"Softmax", {f({4, 768})}, {{"axis", -1}}}, po).stats.count("rows_interleaved") == 0);
  // Elementwise rows (a bias, then Gelu: a band over a sequence of two
  // statements, but no reduction along the rows): no chain to interleave.
  Batch b = read_batch(R"J({"atoll": 1, "graphs": [{"name": "g", "inputs": [{"name": "x", "shape": [8, 64]}],
      "weights": [{"name": "b", "shape": [64]}], "outputs": ["y"],
      "nodes": [{"op": "Add", "name": "bias", "inputs": ["x", "b"], "outputs": ["t"]},
                {"op": "Gelu", "name": "gelu", "inputs": ["t"], "outputs": ["y"]}]}]})J");
  REQUIRE(b.graphs.at(0).graph.has_value());
  const Graph &bias_gelu = *b.graphs[0].graph;
  CHECK(poly::compile_cluster(bias_gelu, bias_gelu.order(), po).stats.count("rows_interleaved") == 0);
  poly::PolyOptions off = po;
  off.tile = false;
  CHECK(compile({"Softmax", {f({4, 64})}, {{"axis", -1}}}, off).stats.count("rows_interleaved") == 0);
}

TEST_CASE("interleave_rows: random row-wise kernels and targets keep results equal (JIT and C)") {
  const unsigned base_seed = 9090;
  std::vector<test::Case> pool = {
      {"Softmax", {f({4, 10})}, {{"axis", 1}}},
      {"Softmax", {f({2, 12, 64})}, {{"axis", -1}}},
      {"Softmax", {f({6, 33})}, {{"axis", 1}}},
      {"LogSoftmax", {f({8, 17})}, {{"axis", -1}}},
      {"Softmax", {f({2, 3, 6, 16})}, {{"axis", -1}}},
      {"Softmax", {f({5, 7})}, {{"axis", 1}}},
      {"ReduceMean", {f({12, 40})}, {{"axes", {1}}, {"keepdims", 1}}},
  };
  std::vector<Graph> graphs;
  std::vector<polytest::Variant> variants;
  for (std::size_t p = 0; p < pool.size(); ++p)
    graphs.push_back(test::make_case_graph(pool[p], "r" + std::to_string(p), "n" + std::to_string(p)));
  int applied = 0;
  for (std::size_t p = 0; p < pool.size(); ++p) {
    for (int v = 0; v < 3; ++v) {
      unsigned seed = base_seed + static_cast<unsigned>(variants.size());
      std::mt19937 rng(seed);
      std::ostringstream what;
      poly::PolyOptions po;
      po.target = polytest::avx512_target(1 + static_cast<int>(rng() % 2));
      int lanes[] = {1, 4, 8, 16};
      po.target.vector_lanes = v == 0 ? 16 : lanes[rng() % 4];
      what << "lanes " << po.target.vector_lanes << " cores " << po.target.cores;
      const polytest::Variant *added = polytest::add_variant(variants, p, seed, what.str(), test::describe_case(pool[p]), "rk",
                                                             [&] { return poly::compile_cluster(graphs[p], graphs[p].order(), po); });
      if (added) applied += added->cluster.stats.count("rows_interleaved") ? 1 : 0;
    }
  }
  CHECK(applied >= 9);  // the four even-row Softmax shapes and the LogSoftmax, three targets each, at the least
  polytest::check_variants(variants, graphs, pool);
}

}  // TEST_SUITE
