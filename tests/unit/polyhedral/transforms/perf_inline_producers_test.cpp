// inline_producers: attention's scale recomputed in Softmax's reads, the producers it leaves alone, and random
// elementwise producers whose JIT and C code equal the reference.
#include "src/frontend/batch.h"

#include "polyhedral/compile_cluster.h"
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/scop/scop.h"
#include "polyhedral/transforms/scop/inline_producers.h"
#include "tests/unit/polyhedral/transforms/random_variants.h"

#include <doctest/doctest.h>

#include <random>
#include <sstream>

using namespace atl;

namespace {

std::string dims(const std::vector<long> &d) {
  std::string s;
  for (long v : d) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return "[" + s + "]";
}

/// One graph from its inputs, weights, nodes and outputs (JSON arrays' contents).
Graph graph_of(const std::string &inputs, const std::string &weights, const std::string &nodes,
               const std::string &outputs) {
  std::string text = R"J({"atoll": 1, "graphs": [{"name": "g", "inputs": [)J" + inputs + R"J(], "weights": [)J" + weights +
                     R"J(], "outputs": [)J" + outputs + R"J(], "nodes": [)J" + nodes + "]}]}";
  Batch b = read_batch(text);
  REQUIRE(b.graphs.size() == 1);
  REQUIRE_MESSAGE(b.graphs[0].graph.has_value(), (b.graphs[0].error ? b.graphs[0].error->what() : ""));
  return *b.graphs[0].graph;
}

/// scores [h, r, c] * 0.125 -> Softmax over the last axis (BERT's attention).
Graph scale_softmax(long h, long r, long c) {
  return graph_of(R"J({"name": "sc", "shape": )J" + dims({h, r, c}) + R"J(, "init": "uniform(-8,8)"})J",
                  R"J({"name": "scale", "shape": [], "data": 0.125})J",
                  R"J({"op": "Mul", "name": "scale_scores", "inputs": ["sc", "scale"], "outputs": ["scs"]},
                      {"op": "Softmax", "name": "softmax", "inputs": ["scs"], "outputs": ["prob"], "attrs": {"axis": -1}})J",
                  R"J("prob")J");
}

/// A Compute node `name` writing `out` of `shape` from `inputs` by `expr`.
std::string compute_node(const std::string &name, const std::string &inputs, const std::string &out,
                         const std::string &expr, const std::vector<long> &shape) {
  return R"J({"op": "Compute", "name": ")J" + name + R"J(", "inputs": [)J" + inputs + R"J(], "outputs": [")J" + out +
         R"J("], "attrs": {"expr": ")J" + expr + R"J(", "shape": )J" + dims(shape) + "}}";
}

poly::ClusterResult compile_all(const Graph &g) {
  poly::PolyOptions po;
  po.target = polytest::avx512_target();
  return poly::compile_cluster(g, g.order(), po);
}

bool reads_array(const poly::ScopStatement &s, const std::string &array) {
  for (const poly::ScopAccess &a : s.reads)
    if (a.array == array) return true;
  return false;
}

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("inline_producers: attention's scale is recomputed in the two Softmax statements that read it") {
  Graph g = scale_softmax(12, 64, 64);
  poly::IslContext ctx;
  poly::Scop scop = poly::build_scop(ctx, g, g.order());
  REQUIRE(scop.array("scs"));
  const std::size_t before = scop.statements.size();
  poly::InlineResult r = poly::inline_producers(scop);
  REQUIRE(r.statements.size() == 1);
  CHECK(r.statements[0] == "scale_scores_0");
  CHECK(r.into.at("scale_scores") == "softmax");
  CHECK(scop.statements.size() == before - 1);
  CHECK(scop.array("scs") == nullptr);
  CHECK(scop.array_of_tensor.count("scs") == 0);
  int readers = 0;
  for (const poly::ScopStatement &s : scop.statements) {
    CHECK_FALSE(reads_array(s, "scs"));
    CHECK(s.write.array != "scs");
    if (!reads_array(s, "sc")) continue;
    ++readers;
    // The rebuilt access is exact: element (h, i, j) of sc at (h, i, j).
    for (const poly::ScopAccess &a : s.reads)
      if (a.array == "sc") CHECK(a.relation.is_injective());
    CHECK(reads_array(s, "scale"));
    CHECK(compute::print(*s.rhs).find("sc(") != std::string::npos);
  }
  CHECK(readers == 2);  // the max and the exp

  poly::ClusterResult c = compile_all(g);
  CHECK(c.stats["producers_inlined"] == 1);
  CAPTURE(c.ast_text);
  CHECK(c.ast_text.find("scs[") == std::string::npos);
  // The max reads sc unscaled (factor_reduction_scale), the exp reads it scaled.
  CHECK(c.ast_text.find("max= sc[") != std::string::npos);
  CHECK(c.ast_text.find("exp(((sc[") != std::string::npos);
}

TEST_CASE("inline_producers: producers it leaves alone") {
  const std::string x = R"J({"name": "x", "shape": [6, 10]})J", xy = x + R"J(, {"name": "y", "shape": [6, 10]})J";
  SUBCASE("read three times") {
    Graph g = graph_of(xy, "",
                       R"J({"op": "Add", "name": "a", "inputs": ["x", "y"], "outputs": ["t"]}, )J" +
                           compute_node("c", R"J("t")J", "z", "z(i, j) = t(i, j) * t(i, j) + t(i, j) where i in 0:6, j in 0:10",
                                        {6, 10}),
                       R"J("z")J");
    CHECK(compile_all(g).stats.count("producers_inlined") == 0);
    poly::IslContext ctx;
    poly::Scop scop = poly::build_scop(ctx, g, g.order());
    CHECK(poly::inline_producers(scop, 3).statements.size() == 1);  // allowed three reads
  }
  // x -> a Compute node writing t by `expr` -> Relu.
  auto compute_then_relu = [&](const std::string &expr) {
    return graph_of(x, "",
                    compute_node("c", R"J("x")J", "t", expr, {6, 10}) +
                        R"J(, {"op": "Relu", "name": "r", "inputs": ["t"], "outputs": ["z"]})J",
                    R"J("z")J");
  };
  SUBCASE("two operations") {
    Graph g = compute_then_relu("t(i, j) = x(i, j) * 2 + 1 where i in 0:6, j in 0:10");
    CHECK(compile_all(g).stats.count("producers_inlined") == 0);
  }
  SUBCASE("part of its output written") {
    Graph g = compute_then_relu("t(i, j) = x(i, j) * 2 where i in 0:3, j in 0:10");
    CHECK(compile_all(g).stats.count("producers_inlined") == 0);
  }
  SUBCASE("a value the cluster computes: only the first of a chain") {
    // Add reads inputs: inlined into the Mul, which then has two operations.
    Graph g = graph_of(xy + R"J(, {"name": "w", "shape": [6, 10]})J", "",
                       R"J({"op": "Add", "name": "a", "inputs": ["x", "y"], "outputs": ["t"]},
                           {"op": "Mul", "name": "m", "inputs": ["t", "w"], "outputs": ["u"]},
                           {"op": "Relu", "name": "r", "inputs": ["u"], "outputs": ["z"]})J",
                       R"J("z")J");
    poly::ClusterResult c = compile_all(g);
    CHECK(c.stats["producers_inlined"] == 1);
    CHECK(c.inlined.at("a") == "m");
  }
  SUBCASE("an output of the graph") {
    Graph g = graph_of(xy, "",
                       R"J({"op": "Mul", "name": "m", "inputs": ["x", "y"], "outputs": ["t"]},
                           {"op": "Relu", "name": "r", "inputs": ["t"], "outputs": ["z"]})J",
                       R"J("t", "z")J");
    CHECK(compile_all(g).stats.count("producers_inlined") == 0);
  }
  SUBCASE("a given tree that schedules the producer keeps it") {
    Graph g = scale_softmax(2, 5, 7);
    poly::PolyOptions po;
    po.target = polytest::avx512_target();
    po.inline_producers = false;
    const std::string tree = poly::compile_cluster(g, g.order(), po).original_yaml;
    REQUIRE(tree.find("scale_scores_0") != std::string::npos);
    po.inline_producers = true;
    po.scheduler = "given";
    po.tree = tree;
    poly::ClusterResult r = poly::compile_cluster(g, g.order(), po);
    CHECK(r.stats.count("producers_inlined") == 0);
    CHECK(r.ast_text.find("scale_scores_0") != std::string::npos);
    // A tree printed with the producer inlined (explain --stage schedule) reads back inlined.
    po.scheduler = "isl";
    po.tree.clear();
    poly::ClusterResult printed = poly::compile_cluster(g, g.order(), po);
    REQUIRE(printed.stats["producers_inlined"] == 1);
    po.scheduler = "given";
    po.tree = printed.schedule_yaml;
    poly::ClusterResult back = poly::compile_cluster(g, g.order(), po);
    CHECK(back.stats["producers_inlined"] == 1);
    CHECK(back.ast_text.find("scale_scores_0") == std::string::npos);
  }
}

TEST_CASE("inline_producers: random elementwise producers and their readers keep results equal (JIT and C)") {
  const unsigned base_seed = 6161;
  std::mt19937 shapes(base_seed);
  std::vector<Graph> graphs;
  std::vector<std::string> names;
  const char *producers[] = {"Mul", "Add", "Sub", "Div"};
  for (int p = 0; p < 8; ++p) {
    long a = 1 + static_cast<long>(shapes() % 5), b = 1 + static_cast<long>(shapes() % 13),
         c = 1 + static_cast<long>(shapes() % 37);
    const std::string op = producers[shapes() % 4];
    // The second operand: a scalar weight, a row of c broadcast, or a whole input.
    const int kind = static_cast<int>(shapes() % 3);
    std::string inputs = R"J({"name": "x", "shape": )J" + dims({a, b, c}) + R"J(, "init": "uniform(-3,3)"})J";
    std::string weights;
    if (kind == 0) weights = R"J({"name": "s", "shape": [], "data": 0.37})J";
    if (kind == 1) weights = R"J({"name": "s", "shape": )J" + dims({c}) + R"J(, "init": "uniform(0.5,2)"})J";
    if (kind == 2) inputs += R"J(, {"name": "s", "shape": )J" + dims({a, b, c}) + R"J(, "init": "uniform(0.5,2)"})J";
    // The reader: Softmax (two reads), Relu (one), or Sigmoid then Add with the producer's value (two, in two nodes).
    const int reader = static_cast<int>(shapes() % 3);
    std::string nodes = R"J({"op": ")J" + op + R"J(", "name": "prod", "inputs": ["x", "s"], "outputs": ["t"]}, )J";
    if (reader == 0) nodes += R"J({"op": "Softmax", "name": "rd", "inputs": ["t"], "outputs": ["z"], "attrs": {"axis": -1}})J";
    if (reader == 1) nodes += R"J({"op": "Relu", "name": "rd", "inputs": ["t"], "outputs": ["z"]})J";
    if (reader == 2)
      nodes += R"J({"op": "Sigmoid", "name": "rd", "inputs": ["t"], "outputs": ["u"]},
                   {"op": "Add", "name": "rd2", "inputs": ["u", "t"], "outputs": ["z"]})J";
    graphs.push_back(graph_of(inputs, weights, nodes, R"J("z")J"));
    std::ostringstream what;
    what << op << " (" << (kind == 0 ? "scalar" : kind == 1 ? "row" : "tensor") << ") of " << a << "x" << b << "x" << c
         << " -> " << (reader == 0 ? "Softmax" : reader == 1 ? "Relu" : "Sigmoid + Add");
    names.push_back(what.str());
  }
  // A tile hint turns inlining off: the sweep clears it, so every variant may inline.
  int inlined = polytest::sweep_variants(graphs, names, base_seed, "ip", polytest::avx2_target(), "avx2",
                                         "producers_inlined", [](poly::PolyOptions &po) { po.tile_sizes.clear(); });
  CHECK(inlined >= 12);
}

}  // TEST_SUITE
