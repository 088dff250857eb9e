// eliminate_common_subexpr: equal nodes merge (in chains), different attrs do not, graph outputs survive.
#include "graph/passes/eliminate_common_subexpr.h"

#include "run_graph.h"

#include <doctest/doctest.h>

using namespace atl;
using namespace atl::test;

TEST_SUITE("graph") {
TEST_CASE("eliminate_common_subexpr merges a chain of duplicates") {
  Graph g;
  g.name = "cse";
  g.add_input("x", {DType::F32, {2, 3}});
  g.add_node(make_node("Relu", {"x"}, {"a"}, "r1"));
  g.add_node(make_node("Relu", {"x"}, {"b"}, "r2"));
  g.add_node(make_node("Exp", {"a"}, {"c"}, "e1"));
  g.add_node(make_node("Exp", {"b"}, {"d"}, "e2"));
  g.add_node(make_node("Add", {"c", "d"}, {"y"}, "add"));
  g.add_output("y");
  g.finalize();
  PassStats st;
  Graph out = eliminate_common_subexpr(g, &st);
  CHECK(out.num_nodes() == 3);
  CHECK(ops_in_order(out) == std::vector<std::string>{"Relu", "Exp", "Add"});
  CHECK(st.counts["nodes merged"] == 2);
  const Node &add = out.node(*out.producer("y"));
  REQUIRE(add.inputs.size() == 2);
  CHECK(add.inputs[0] == add.inputs[1]);
  CHECK(out.tensor("y").type.str() == "f32[2, 3]");
  CHECK(max_output_difference(g, out) == 0.0);
}

TEST_CASE("eliminate_common_subexpr does not merge nodes with different attributes or inputs") {
  Graph g;
  g.name = "attrs";
  g.add_input("x", {DType::F32, {4}});
  g.add_input("z", {DType::F32, {4}});
  g.add_node(make_node("LeakyRelu", {"x"}, {"a"}, "l1", {{"alpha", 0.1}}));
  g.add_node(make_node("LeakyRelu", {"x"}, {"b"}, "l2", {{"alpha", 0.2}}));
  g.add_node(make_node("Add", {"x", "z"}, {"c"}, "add1"));
  g.add_node(make_node("Add", {"z", "x"}, {"d"}, "add2"));  // operands swapped: not merged
  g.add_node(make_node("Concat", {"a", "b", "c", "d"}, {"y"}, "cat", {{"axis", 0}}));
  g.add_output("y");
  g.finalize();
  PassStats st;
  Graph out = eliminate_common_subexpr(g, &st);
  CHECK(out.num_nodes() == 5);
  CHECK(st.changes == 0);
  CHECK(max_output_difference(g, out) == 0.0);
}

TEST_CASE("eliminate_common_subexpr keeps the duplicate that produces a graph output") {
  Graph g;
  g.name = "outs";
  g.add_input("x", {DType::F32, {3}});
  g.add_node(make_node("Neg", {"x"}, {"a"}, "first"));
  g.add_node(make_node("Exp", {"a"}, {"e"}, "exp"));
  g.add_node(make_node("Neg", {"x"}, {"y"}, "second"));
  g.add_node(make_node("Neg", {"x"}, {"z"}, "third"));
  g.add_output("e");
  g.add_output("y");
  g.add_output("z");
  g.finalize();
  PassStats st;
  Graph out = eliminate_common_subexpr(g, &st);
  // first merges into second or third (whichever the topological order meets
  // first), which keeps its graph output name; the other one stays.
  CHECK(out.num_nodes() == 3);
  CHECK(st.counts["nodes merged"] == 1);
  CHECK(st.counts["not merged: both produce graph outputs"] == 1);
  CHECK(out.node(*out.producer("y")).name == "second");
  CHECK(out.node(*out.producer("z")).name == "third");
  const std::string &read = out.node(*out.producer("e")).inputs.at(0);
  CHECK((read == "y" || read == "z"));
  CHECK(!out.has_tensor("a"));
  CHECK(out.outputs == std::vector<std::string>{"e", "y", "z"});
  CHECK(max_output_difference(g, out) == 0.0);
}
}
