// Graph IR: building through the API, naming, constant inputs, topological
// order, cycles, instantiation of symbolic dimensions, FLOPs.
#include "graph/ir/graph.h"
#include "graph/ir/node_graph.h"

#include <doctest/doctest.h>

#include <sstream>

using namespace atl;

namespace {

Node make_node(std::string op, std::vector<std::string> in, std::vector<std::string> out, std::string name = {},
               nlohmann::json attrs = nlohmann::json::object()) {
  Node n;
  n.op = std::move(op);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.name = std::move(name);
  n.attrs = std::move(attrs);
  return n;
}

}  // namespace

TEST_SUITE("graph") {
TEST_CASE("topological order follows data, not insertion order") {
  Graph g;
  g.name = "g";
  g.add_input("x", {DType::F32, {4, 8}});
  g.add_node(make_node("Relu", {"b"}, {"y"}));
  g.add_node(make_node("Exp", {"x"}, {"a"}, "first"));
  g.add_node(make_node("Neg", {"a"}, {"b"}));
  g.add_output("y");
  g.finalize();
  REQUIRE(g.order().size() == 3);
  CHECK(g.node(g.order()[0]).name == "first");
  CHECK(g.node(g.order()[1]).name == "n2");
  CHECK(g.node(g.order()[2]).name == "n0");
  CHECK(g.tensor("y").type.str() == "f32[4, 8]");
  CHECK(boost::num_edges(g.nodes()) == 2);
  CHECK(g.producer("b").has_value());
  CHECK(!g.producer("x").has_value());
}

TEST_CASE("a cycle is an error naming the nodes") {
  Graph g;
  g.name = "loop";
  g.add_input("x", {DType::F32, {2}});
  g.add_node(make_node("Add", {"x", "c"}, {"b"}, "a"));
  g.add_node(make_node("Relu", {"b"}, {"c"}, "r"));
  g.add_output("b");
  CHECK_THROWS_WITH_AS(g.finalize(), doctest::Contains("cycle"), UserError);
}

TEST_CASE("unknown operator, unknown tensor, duplicate producer") {
  {
    Graph g;
    g.name = "g";
    g.add_input("x", {DType::F32, {2}});
    g.add_node(make_node("Frobnicate", {"x"}, {"y"}, "f"));
    g.add_output("y");
    CHECK_THROWS_WITH_AS(g.finalize(), doctest::Contains("node 'f': unknown operator 'Frobnicate'"), UserError);
  }
  {
    Graph g;
    g.name = "g";
    g.add_input("x", {DType::F32, {2}});
    g.add_node(make_node("Add", {"x", "nope"}, {"y"}, "add"));
    g.add_output("y");
    CHECK_THROWS_WITH_AS(g.finalize(), doctest::Contains("unknown tensor 'nope'"), UserError);
  }
  {
    Graph g;
    g.name = "g";
    g.add_input("x", {DType::F32, {2}});
    g.add_node(make_node("Relu", {"x"}, {"x"}, "r"));
    g.add_output("x");
    CHECK_THROWS_WITH_AS(g.finalize(), doctest::Contains("already a graph input"), UserError);
  }
}

TEST_CASE("a constant input moves into the attribute") {
  Graph g;
  g.name = "g";
  g.add_input("x", {DType::F32, {2, 6}});
  g.add_weight("s", {DType::I64, {2}}, {}, std::vector<double>{3, 4});
  g.add_node(make_node("Reshape", {"x", "s"}, {"y"}, "rs"));
  g.add_output("y");
  g.finalize();
  const Node &n = g.node(g.order()[0]);
  CHECK(n.inputs.size() == 1);
  CHECK(n.attrs.at("shape") == nlohmann::json({3, 4}));
  CHECK(g.tensor("y").type.str() == "f32[3, 4]");
}

TEST_CASE("a constant list of numbers keeps its fractions in the attribute") {
  Graph g;
  g.name = "g";
  g.add_input("x", {DType::F32, {1, 1, 4, 5}});
  g.add_weight("sc", {DType::F32, {4}}, {}, std::vector<double>{1, 1, 0.5, 1.5});
  g.add_node(make_node("Resize", {"x", "", "sc"}, {"y"}, "rz"));
  g.add_output("y");
  g.finalize();
  const Node &n = g.node(g.order()[0]);
  CHECK(n.attrs.at("scales") == nlohmann::json({1.0, 1.0, 0.5, 1.5}));
  CHECK(g.tensor("y").type.str() == "f32[1, 1, 2, 7]");
}

TEST_CASE("symbolic dimensions: propagation, instantiation, range check") {
  Graph g;
  g.name = "g";
  g.params["N"] = {1, 8};
  g.add_input("x", {DType::F32, {Dim::sym("N"), 3}});
  g.add_weight("w", {DType::F32, {3, 5}});
  g.add_node(make_node("MatMul", {"x", "w"}, {"y"}));
  g.add_output("y");
  g.finalize();
  CHECK(g.tensor("y").type.str() == "f32[N, 5]");
  Graph c = g.instantiate({{"N", 4}});
  CHECK(c.tensor("y").type.str() == "f32[4, 5]");
  CHECK(c.flops() == 2 * 4 * 5 * 3);
  CHECK_THROWS_WITH_AS(g.instantiate({{"N", 9}}), doctest::Contains("outside its range 1:8"), UserError);
  CHECK_THROWS_WITH_AS(g.instantiate({}), doctest::Contains("no value given for parameter 'N'"), UserError);
}

TEST_CASE("printer shows inferred types and attributes") {
  Graph g;
  g.name = "p";
  g.add_input("x", {DType::F16, {2, 3}});
  g.add_node(make_node("LeakyRelu", {"x"}, {"y"}, "lr", {{"alpha", 0.5}}));
  g.add_output("y");
  g.finalize();
  std::ostringstream os;
  print_graph(os, g);
  CHECK(os.str() == "graph p\n  input x: f16[2, 3]\n  node lr = LeakyRelu(x) {\"alpha\":0.5}\n    -> y: f16[2, 3]\n"
                    "  output y: f16[2, 3]\n");
  std::ostringstream dot;
  print_graph_dot(dot, g);
  CHECK(dot.str().find("digraph") != std::string::npos);
  CHECK(dot.str().find("lr\\nLeakyRelu") != std::string::npos);
}
}
