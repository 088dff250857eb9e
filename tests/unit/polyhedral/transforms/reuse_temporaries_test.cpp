// Tests of reuse_temporaries: which temporaries take the storage of the
// array their elementwise reader writes, which keep their own, and that the
// kernels still compute the graphs' definitions (tiled, epilogues in tiles,
// partial tiles).
#include "../poly_test_util.h"

#include "polyhedral/transforms/ast/reuse_temporaries.h"

#include "src/frontend/batch.h"

#include <sstream>

using namespace atl;
using namespace atl::poly;

namespace {

/// Options that keep the temporaries these tests are about: no producer
/// is recomputed in its readers (transforms/scop/inline_producers).
PolyOptions kept() {
  PolyOptions o;
  o.inline_producers = false;
  return o;
}


std::string dims(int a, int b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + "]"; }

/// y = Relu(MatMul(x, w) + b): the MatMul's product and the biased sum are temporaries.
Graph matmul_bias_relu(int m, int k, int n) {
  std::string io = R"("inputs": [{"name": "x", "shape": )" + dims(m, k) + R"(}], "weights": [{"name": "w", "shape": )" +
                   dims(k, n) + R"(}, {"name": "b", "shape": [)" + std::to_string(n) + R"(]}], "outputs": ["y"])";
  return polytest::graph_json(R"([{"op": "MatMul", "name": "mm", "inputs": ["x", "w"], "outputs": ["p"]},
                      {"op": "Add", "name": "bias", "inputs": ["p", "b"], "outputs": ["pb"]},
                      {"op": "Relu", "name": "relu", "inputs": ["pb"], "outputs": ["y"]}])",
                  io);
}

bool has_array(const LKernel &k, const std::string &name) {
  for (const LArray &a : k.arrays)
    if (a.name == name) return true;
  return false;
}

std::string ast_text(const ClusterResult &r) {
  std::ostringstream os;
  print_loop_ast(os, r.kernel);
  return os.str();
}

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("a contraction's product and its elementwise epilogue run in the output's storage") {
  for (auto [m, k, n] : {std::tuple{64, 48, 96}, std::tuple{13, 29, 37}, std::tuple{1, 7, 130}}) {
    CAPTURE(m);
    CAPTURE(k);
    CAPTURE(n);
    Graph g = matmul_bias_relu(m, k, n);
    ClusterResult r = polytest::compile(g, kept());
    const std::string p = r.array_of_tensor.at("p"), pb = r.array_of_tensor.at("pb"), y = r.array_of_tensor.at("y");
    CHECK(!has_array(r.kernel, p));
    CHECK(!has_array(r.kernel, pb));
    CHECK(has_array(r.kernel, y));
    CHECK(r.stats.at("temporaries_reused") == 2);
    CHECK(r.stats.at("reused_bytes_saved") == 2 * 4 * m * n);
    std::string ast = ast_text(r);
    CHECK(ast.find(p + "[") == std::string::npos);
    CHECK(ast.find(y + "[") != std::string::npos);
    CHECK(polytest::check_against_definitions(g, r) < 1e-5);
    // The same without tiling (isl's tree as it is).
    PolyOptions o = kept();
    o.tile = false;
    ClusterResult u = polytest::compile(g, o);
    CHECK(!has_array(u.kernel, p));
    CHECK(polytest::check_against_definitions(g, u) < 1e-5);
  }
}

TEST_CASE("reuse is an option") {
  Graph g = matmul_bias_relu(8, 8, 8);
  PolyOptions o = kept();
  o.reuse_temporaries = false;
  ClusterResult r = polytest::compile(g, o);
  CHECK(has_array(r.kernel, r.array_of_tensor.at("p")));
  CHECK(r.stats.count("temporaries_reused") == 0);
}

TEST_CASE("a temporary with two readers, or read at another element, keeps its storage") {
  std::string io = R"("inputs": [{"name": "x", "shape": [24, 40]}], "outputs": ["y", "z"])";
  // f is read by Relu and by Mul: two readers.
  Graph two = polytest::graph_json(R"([{"op": "Exp", "name": "e", "inputs": ["x"], "outputs": ["f"]},
                           {"op": "Relu", "name": "r", "inputs": ["f"], "outputs": ["y"]},
                           {"op": "Mul", "name": "m", "inputs": ["f", "y"], "outputs": ["z"]}])",
                       io);
  ClusterResult r = polytest::compile(two, kept());
  CHECK(r.stats.count("temporaries_reused") == 0);
  CHECK(polytest::check_against_definitions(two, r) < 1e-6);
  // t is read transposed: the reader's element is not the writer's.
  std::string io2 = R"("inputs": [{"name": "x", "shape": [24, 24]}], "outputs": ["y"])";
  Graph transposed = polytest::graph_json(R"([{"op": "Exp", "name": "e", "inputs": ["x"], "outputs": ["t"]},
                                  {"op": "Transpose", "name": "tr", "inputs": ["t"], "outputs": ["y"],
                                   "attrs": {"perm": [1, 0]}}])",
                              io2);
  PolyOptions o = kept();
  o.contract = false;
  ClusterResult t = polytest::compile(transposed, o);
  CHECK(has_array(t.kernel, t.array_of_tensor.at("t")));
  CHECK(t.stats.count("temporaries_reused") == 0);
  CHECK(polytest::check_against_definitions(transposed, t) < 1e-6);
}

TEST_CASE("of two temporaries read by one statement, only one takes its storage") {
  std::string io = R"("inputs": [{"name": "x", "shape": [9, 37]}], "outputs": ["y"])";
  Graph g = polytest::graph_json(R"([{"op": "Relu", "name": "r", "inputs": ["x"], "outputs": ["a"]},
                         {"op": "Exp", "name": "e", "inputs": ["x"], "outputs": ["b"]},
                         {"op": "Add", "name": "s", "inputs": ["a", "b"], "outputs": ["y"]}])",
                     io);
  PolyOptions o = kept();
  o.contract = false;
  ClusterResult r = polytest::compile(g, o);
  CHECK(r.stats.at("temporaries_reused") == 1);
  CHECK(has_array(r.kernel, r.array_of_tensor.at("a")) != has_array(r.kernel, r.array_of_tensor.at("b")));
  CHECK(polytest::check_against_definitions(g, r) < 1e-6);
}

TEST_CASE("a reader that writes only part of its array does not take the temporary") {
  // y has 8 elements and the reader writes 5: y(5..7) stay zero, so t (all 8
  // written by Exp) cannot live in y.
  std::string io = R"("inputs": [{"name": "x", "shape": [8]}], "outputs": ["y"])";
  Graph g = polytest::graph_json(R"([{"op": "Exp", "name": "e", "inputs": ["x"], "outputs": ["t"]},
                                     {"op": "Compute", "name": "p", "inputs": ["t"], "outputs": ["y"],
                                      "attrs": {"expr": "y(i) = t(i) * 2 where i in 0:5", "shape": [8]}}])",
                                 io);
  PolyOptions o = kept();
  o.contract = false;
  ClusterResult r = polytest::compile(g, o);
  CHECK(r.stats.count("temporaries_reused") == 0);
  CHECK(has_array(r.kernel, r.array_of_tensor.at("t")));
  CHECK(polytest::check_against_definitions(g, r) < 1e-6);
}

TEST_CASE("a reduction's reader and a broadcast reader keep the temporary's storage") {
  // s = ReduceSum(f) reads f with +=; y = f + s broadcasts s (a different shape).
  std::string io = R"("inputs": [{"name": "x", "shape": [16, 33]}], "outputs": ["y"])";
  Graph g = polytest::graph_json(R"([{"op": "Exp", "name": "e", "inputs": ["x"], "outputs": ["f"]},
                         {"op": "ReduceSum", "name": "s", "inputs": ["f"], "outputs": ["sum"],
                          "attrs": {"axes": [1], "keepdims": 1}},
                         {"op": "Div", "name": "d", "inputs": ["f", "sum"], "outputs": ["y"]}])",
                     io);
  PolyOptions o = kept();
  o.contract = false;
  ClusterResult r = polytest::compile(g, o);
  CHECK(has_array(r.kernel, r.array_of_tensor.at("f")));
  CHECK(has_array(r.kernel, r.array_of_tensor.at("sum")));
  CHECK(polytest::check_against_definitions(g, r) < 1e-6);
}

}  // TEST_SUITE
