// factor_reduction_scale: attention's positive scale taken out of Softmax's max, the reductions it leaves
// alone, bit-identical results with infinities, NaN and overflow, and random scaled Softmax rows against the
// reference (JIT and C). (LogSoftmax reads its input three times: inline_producers leaves its scale alone.)
#include "src/frontend/batch.h"

#include "polyhedral/compile_cluster.h"
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/scop/scop.h"
#include "polyhedral/transforms/scop/factor_reduction_scale.h"
#include "polyhedral/transforms/scop/inline_producers.h"
#include "tests/unit/polyhedral/transforms/random_variants.h"

#include <doctest/doctest.h>

#include <random>
#include <sstream>

using namespace atl;

namespace {

/// x [2, 5, 7] -> `op` with `s` (a weight `sdecl`) -> `reader` (Softmax or ReduceMax).
Graph scaled(const std::string &op, const std::string &sdecl, const std::string &reader) {
  std::string attrs = reader == "ReduceMax" ? R"J({"axes": [2], "keepdims": 1})J" : R"J({"axis": -1})J";
  std::string text = R"J({"atoll": 1, "graphs": [{"name": "g", "inputs": [{"name": "x", "shape": [2, 5, 7],
    "init": "uniform(-8,8)"}], "weights": [)J" + sdecl + R"J(], "outputs": ["z"], "nodes": [{"op": ")J" + op + R"J(", "name": "m", "inputs": ["x", "s"], "outputs": ["t"]},
    {"op": ")J" + reader + R"J(", "name": "r", "inputs": ["t"], "outputs": ["z"], "attrs": )J" + attrs + "}]}]}";
  Batch b = read_batch(text);
  REQUIRE(b.graphs.size() == 1);
  REQUIRE_MESSAGE(b.graphs[0].graph.has_value(), (b.graphs[0].error ? b.graphs[0].error->what() : ""));
  return *b.graphs[0].graph;
}

const std::string kScale = R"J({"name": "s", "shape": [], "data": 0.125})J";

poly::ClusterResult compile_with(const Graph &g, bool factor) {
  poly::PolyOptions po;
  po.target = polytest::avx512_target();
  po.factor_scales = factor;
  return poly::compile_cluster(g, g.order(), po);
}

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("factor_reduction_scale: attention's scale leaves Softmax's max for the reads of its result") {
  Graph g = scaled("Mul", kScale, "Softmax");
  poly::IslContext ctx;
  poly::Scop scop = poly::build_scop(ctx, g, g.order());
  REQUIRE(scop.array("s"));
  CHECK(scop.array("s")->scalar == 0.125);
  REQUIRE(poly::inline_producers(scop).statements.size() == 1);
  std::vector<std::string> done = poly::factor_reduction_scales(scop);
  REQUIRE(done.size() == 1);
  const poly::ScopStatement *mx = scop.statement(done[0]);
  REQUIRE(mx);
  CHECK(mx->op == compute::AssignOp::Max);
  CHECK(compute::print(*mx->rhs) == "x(i0, i1, i2)");
  REQUIRE(mx->reads.size() == 1);  // x only: the scale's access is gone
  CHECK(mx->reads[0].array == "x");
  int scaled_reads = 0;
  for (const poly::ScopStatement &s : scop.statements) {
    if (!s.rhs || &s == mx) continue;
    std::string body = compute::print(*s.rhs);
    if (body.find(mx->write.array + "(") == std::string::npos) continue;
    CAPTURE(body);
    CHECK(body.find(mx->write.array + "(i0, i1) * s()") != std::string::npos);
    ++scaled_reads;
  }
  CHECK(scaled_reads == 1);  // the exp; the sum and the division read other temporaries

  poly::ClusterResult c = compile_with(g, true);
  CHECK(c.stats["reduction_scales_factored"] == 1);
  CAPTURE(c.ast_text);
  CHECK(c.ast_text.find("max= x[") != std::string::npos);
  CHECK(compile_with(g, false).stats.count("reduction_scales_factored") == 0);
}

TEST_CASE("factor_reduction_scale: a division by a positive constant, and a literal factor in a Compute node") {
  poly::ClusterResult d = compile_with(scaled("Div", R"J({"name": "s", "shape": [1], "data": 8})J", "Softmax"), true);
  CHECK(d.stats["reduction_scales_factored"] == 1);
  CAPTURE(d.ast_text);
  CHECK(d.ast_text.find("max= x[") != std::string::npos);
  CHECK(d.ast_text.find("_mx[0, 0] / s[") != std::string::npos);

  Batch b = read_batch(R"J({"atoll": 1, "graphs": [{"name": "g", "inputs": [{"name": "x", "shape": [5, 7]}],
    "outputs": ["y"], "nodes": [{"op": "Compute", "name": "c", "inputs": ["x"], "outputs": ["y"],
    "attrs": {"expr": "m(i) max=! x(i, j) * 2.5\ny(i, j) = x(i, j) - m(i)", "shape": [5, 7]}}]}]})J");
  REQUIRE(b.graphs.size() == 1);
  REQUIRE(b.graphs[0].graph.has_value());
  poly::ClusterResult c = compile_with(*b.graphs[0].graph, true);
  CHECK(c.stats["reduction_scales_factored"] == 1);
  CAPTURE(c.ast_text);
  CHECK(c.ast_text.find("max= x[") != std::string::npos);
  CHECK(c.ast_text.find("c_m[0] * 2.5") != std::string::npos);
}

TEST_CASE("factor_reduction_scale: reductions it leaves alone") {
  SUBCASE("a negative factor") {
    CHECK(compile_with(scaled("Mul", R"J({"name": "s", "shape": [], "data": -0.125})J", "Softmax"), true)
              .stats.count("reduction_scales_factored") == 0);
  }
  SUBCASE("a factor of zero") {
    CHECK(compile_with(scaled("Mul", R"J({"name": "s", "shape": [], "data": 0})J", "Softmax"), true)
              .stats.count("reduction_scales_factored") == 0);
  }
  SUBCASE("a factor that is not a constant") {
    CHECK(compile_with(scaled("Mul", R"J({"name": "s", "shape": []})J", "Softmax"), true)
              .stats.count("reduction_scales_factored") == 0);
  }
  SUBCASE("a factor per column") {
    CHECK(compile_with(scaled("Mul", R"J({"name": "s", "shape": [7], "init": "uniform(0.5,1)"})J", "Softmax"), true)
              .stats.count("reduction_scales_factored") == 0);
  }
  SUBCASE("the maximum is an output of the graph") {
    CHECK(compile_with(scaled("Mul", kScale, "ReduceMax"), true).stats.count("reduction_scales_factored") == 0);
  }
}

TEST_CASE("factor_reduction_scale: the same bits with infinities, NaN and products that overflow (JIT)") {
  // A factor above 1, so that large values overflow once scaled; rows with
  // +inf, -inf, NaN, all -inf, and values near both ends of the float range.
  for (const char *op : {"Mul", "Div"}) {
    const std::string s = std::string(R"J({"name": "s", "shape": [], "data": )J") + (op[0] == 'M' ? "3.5" : "0.25") + "}";
    {
      CAPTURE(op);
      Graph g = scaled(op, s, "Softmax");
      poly::ClusterResult on = compile_with(g, true), off = compile_with(g, false);
      REQUIRE(on.stats["reduction_scales_factored"] == 1);
      off.kernel.name += "_off";
      std::shared_ptr<cpu::CpuExecutable> exe = cpu::jit_kernels({on.kernel, off.kernel});
      std::map<std::string, Tensor> feeds = make_graph_inputs(g);
      polytest::set_special_rows(feeds.at("x"));
      polytest::check_same_bits(polytest::run_cluster(exe, on, g, feeds, "z"), polytest::run_cluster(exe, off, g, feeds, "z"),
                                false);
    }
  }
}

TEST_CASE("factor_reduction_scale: random scaled reductions keep results equal (JIT and C)") {
  const unsigned base_seed = 7272;
  std::mt19937 rng(base_seed);
  std::vector<Graph> graphs;
  std::vector<std::string> names;
  for (int p = 0; p < 6; ++p) {
    const char *op = rng() % 2 ? "Mul" : "Div";
    const char *reader = "Softmax";
    const double c = 0.05 + static_cast<double>(rng() % 1000) / 100.0;
    std::ostringstream s;
    s << R"J({"name": "s", "shape": [], "data": )J" << c << "}";
    graphs.push_back(scaled(op, s.str(), reader));
    std::ostringstream what;
    what << op << " by " << c << " -> " << reader;
    names.push_back(what.str());
  }
  // A tile hint turns inlining off, and so the factor (it is inlined first): the sweep clears it.
  int factored = polytest::sweep_variants(graphs, names, base_seed, "fs", polytest::avx2_target(), "avx2",
                                          "reduction_scales_factored",
                                          [](poly::PolyOptions &po) { po.tile_sizes.clear(); });
  CHECK(factored == 18);
}

}  // TEST_SUITE
