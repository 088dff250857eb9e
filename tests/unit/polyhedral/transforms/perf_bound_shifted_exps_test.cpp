// bound_shifted_exps: Softmax's and LogSoftmax's exp(x - max x) marked as never +inf (scaled or not), the
// exps it leaves alone, the same results with the mark on and off on rows of infinities, NaN and overflow
// (JIT), and random Softmax variants against the reference (JIT and C).
#include "src/frontend/batch.h"

#include "polyhedral/compile_cluster.h"
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/scop/scop.h"
#include "polyhedral/transforms/scop/bound_shifted_exps.h"
#include "tests/unit/polyhedral/transforms/random_variants.h"

#include <doctest/doctest.h>

#include <random>
#include <set>
#include <sstream>

using namespace atl;

namespace {

Graph one_graph(const std::string &text) {
  Batch b = read_batch(text);
  REQUIRE(b.graphs.size() == 1);
  REQUIRE_MESSAGE(b.graphs[0].graph.has_value(), std::string(b.graphs[0].error ? b.graphs[0].error->what() : ""));
  return *b.graphs[0].graph;
}

/// x [2, 5, 7] -> `reader` (Softmax or LogSoftmax), after `op` with a scalar weight s = `scale` when `op` is given.
Graph softmax(const std::string &reader, const std::string &op = "", double scale = 0.125) {
  std::ostringstream t;
  t << R"J({"atoll": 1, "graphs": [{"name": "g", "inputs": [{"name": "x", "shape": [2, 5, 7], "init": "uniform(-8,8)"}],)J";
  if (!op.empty()) t << R"J("weights": [{"name": "s", "shape": [], "data": )J" << scale << "}],";
  t << R"J("outputs": ["z"], "nodes": [)J";
  if (!op.empty()) t << R"J({"op": ")J" << op << R"J(", "name": "m", "inputs": ["x", "s"], "outputs": ["t"]},)J";
  t << R"J({"op": ")J" << reader << R"J(", "name": "r", "inputs": [")J" << (op.empty() ? "x" : "t")
    << R"J("], "outputs": ["z"], "attrs": {"axis": -1}}]}]})J";
  return one_graph(t.str());
}

/// A Compute node on x [5, 7] (and w [5, 7]) with body `expr`, output y [5, 7].
Graph compute_node(const std::string &expr) {
  return one_graph(R"J({"atoll": 1, "graphs": [{"name": "g", "inputs": [{"name": "x", "shape": [5, 7]},
    {"name": "w", "shape": [5, 7]}], "outputs": ["y"], "nodes": [{"op": "Compute", "name": "c", "inputs": ["x", "w"],
    "outputs": ["y"], "attrs": {"expr": ")J" + expr + R"J(", "shape": [5, 7]}}]}]})J");
}

poly::ClusterResult compile_with(const Graph &g, bool bound) {
  poly::PolyOptions po;
  po.target = polytest::avx512_target();
  po.bound_exps = bound;
  return poly::compile_cluster(g, g.order(), po);
}

int marked(const Graph &g) { return static_cast<int>(compile_with(g, true).stats["exps_bounded_above"]); }

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("bound_shifted_exps: Softmax's and LogSoftmax's exp of x minus the row maximum") {
  Graph g = softmax("Softmax");
  poly::IslContext ctx;
  poly::Scop scop = poly::build_scop(ctx, g, g.order());
  CHECK(poly::bound_shifted_exps(scop) == 1);
  int bounded = 0;
  for (const poly::ScopStatement &s : scop.statements)
    if (s.rhs && s.rhs->kind == compute::ExprKind::Call && s.rhs->func == compute::Func::Exp)
      bounded += s.bounded_exps == std::set<int>{0} ? 1 : 0;  // the rhs itself: its first exp
  CHECK(bounded == 1);
  CHECK(poly::bound_shifted_exps(scop) == 0);  // marked once
  std::ostringstream text;
  poly::print_scop(text, scop);
  CHECK(text.str().find("(exp bounded above)") != std::string::npos);

  poly::ClusterResult c = compile_with(g, true);
  CHECK(c.stats["exps_bounded_above"] == 1);
  CAPTURE(c.ast_text);
  CHECK(c.ast_text.find(", exp bounded above") != std::string::npos);
  poly::ClusterResult off = compile_with(g, false);
  CHECK(off.stats.count("exps_bounded_above") == 0);
  CHECK(off.ast_text.find("exp bounded above") == std::string::npos);

  CHECK(marked(softmax("LogSoftmax")) == 1);
}

TEST_CASE("bound_shifted_exps: with attention's scale taken out of the maximum, or left in it") {
  CHECK(marked(softmax("Softmax", "Mul", 0.125)) == 1);
  CHECK(marked(softmax("Softmax", "Mul", 3.5)) == 1);
  CHECK(marked(softmax("Softmax", "Div", 8)) == 1);
  poly::PolyOptions po;
  po.target = polytest::avx512_target();
  po.factor_scales = false;
  Graph g = softmax("Softmax", "Mul", 0.125);
  CHECK(poly::compile_cluster(g, g.order(), po).stats["exps_bounded_above"] == 1);  // exp(x * s - max(x * s))
  CHECK(marked(compute_node("m(i) max=! x(i, j) * 2.5\\ny(i, j) = exp(x(i, j) * 2.5 - m(i))")) == 1);
  CHECK(marked(compute_node("m(i) max=! x(i, j)\\ny(i, j) = exp(x(i, j) / 4 - m(i) / 4)")) == 1);
}

TEST_CASE("bound_shifted_exps: exps it leaves alone") {
  SUBCASE("a sum, not a maximum") { CHECK(marked(compute_node("m(i) +=! x(i, j)\\ny(i, j) = exp(x(i, j) - m(i))")) == 0); }
  SUBCASE("a minimum") { CHECK(marked(compute_node("m(i) min=! x(i, j)\\ny(i, j) = exp(x(i, j) - m(i))")) == 0); }
  SUBCASE("the maximum of another tensor") {
    CHECK(marked(compute_node("m(i) max=! w(i, j)\\ny(i, j) = exp(x(i, j) - m(i))")) == 0);
  }
  SUBCASE("the maximum of part of the row") {
    CHECK(marked(compute_node("m(i) max=! x(i, j) where j in 0:4\\ny(i, j) = exp(x(i, j) - m(i))")) == 0);
  }
  SUBCASE("the maximum of another row") {
    CHECK(marked(compute_node("m(i) max=! x((i + 1) % 5, j) where i in 0:5\\ny(i, j) = exp(x(i, j) - m(i))")) == 0);
  }
  SUBCASE("the maximum of a row shifted, which still holds each element") {
    CHECK(marked(compute_node("m(i) max=! x(i, (j + 3) % 7) where j in 0:7\\ny(i, j) = exp(x(i, j) - m(i))")) == 1);
  }
  SUBCASE("the maximum minus the value") {
    CHECK(marked(compute_node("m(i) max=! x(i, j)\\ny(i, j) = exp(m(i) - x(i, j))")) == 0);
  }
  SUBCASE("a negative factor") {
    CHECK(marked(compute_node("m(i) max=! x(i, j)\\ny(i, j) = exp(x(i, j) * -2 - m(i) * -2)")) == 0);
  }
  SUBCASE("different factors") {
    CHECK(marked(compute_node("m(i) max=! x(i, j)\\ny(i, j) = exp(x(i, j) * 2 - m(i) * 0.5)")) == 0);
  }
  SUBCASE("another value than the maximum's") {
    CHECK(marked(compute_node("m(i) max=! x(i, j)\\ny(i, j) = exp(x(i, j) * 2 - m(i))")) == 0);
  }
  SUBCASE("an index in the value") {
    CHECK(marked(compute_node("m(i) max=! x(i, j) + j\\ny(i, j) = exp(x(i, j) + j - m(i))")) == 0);
  }
}

TEST_CASE("bound_shifted_exps: the same results with infinities, NaN and overflow, mark on and off (JIT)") {
  // Scales above 1, so that products overflow (the fused multiply-subtract
  // case of the header), and rows with +inf, -inf, NaN, all -inf, huge values.
  for (const char *reader : {"Softmax", "LogSoftmax"})
    for (const char *op : {"", "Mul", "Div"}) {
      CAPTURE(reader);
      CAPTURE(op);
      Graph g = softmax(reader, op, op[0] == 'D' ? 0.25 : 3.5);
      poly::ClusterResult on = compile_with(g, true), off = compile_with(g, false);
      REQUIRE(on.stats["exps_bounded_above"] == 1);
      off.kernel.name += "_off";
      std::shared_ptr<cpu::CpuExecutable> exe = cpu::jit_kernels({on.kernel, off.kernel});
      std::map<std::string, Tensor> feeds = make_graph_inputs(g);
      polytest::set_special_rows(feeds.at("x"));
      polytest::check_same_bits(polytest::run_cluster(exe, on, g, feeds, "z"), polytest::run_cluster(exe, off, g, feeds, "z"),
                                true);
    }
}

TEST_CASE("bound_shifted_exps: random Softmax and LogSoftmax variants keep results equal (JIT and C)") {
  const unsigned base_seed = 8383;
  std::mt19937 rng(base_seed);
  std::vector<Graph> graphs;
  std::vector<std::string> names;
  for (int p = 0; p < 6; ++p) {
    const char *reader = rng() % 2 ? "Softmax" : "LogSoftmax";
    const char *ops[] = {"", "Mul", "Div"};
    const char *op = ops[rng() % 3];
    const double c = 0.05 + static_cast<double>(rng() % 1000) / 100.0;
    graphs.push_back(softmax(reader, op, c));
    std::ostringstream what;
    what << (*op ? std::string(op) + " by " + std::to_string(c) + " -> " : "") << reader;
    names.push_back(what.str());
  }
  int bounded = polytest::sweep_variants(graphs, names, base_seed, "be", polytest::avx2_target(), "avx2",
                                         "exps_bounded_above");
  CHECK(bounded == 18);
}

}  // TEST_SUITE
