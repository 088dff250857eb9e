// eliminate_dead_nodes: unreachable nodes and unused constants go; what feeds an output stays.
#include "graph/passes/eliminate_dead_nodes.h"

#include "run_graph.h"

#include <doctest/doctest.h>

using namespace atl;
using namespace atl::test;

TEST_SUITE("graph") {
TEST_CASE("eliminate_dead_nodes removes a dead branch and its constant weight") {
  Graph g;
  g.name = "dce";
  g.add_input("x", {DType::F32, {2, 2}});
  g.add_weight("c", {DType::F32, {2, 2}}, {}, random_values(4, 9));
  g.add_weight("r", {DType::F32, {2, 2}});
  g.add_node(make_node("Relu", {"x"}, {"a"}, "live"));
  g.add_node(make_node("Add", {"x", "c"}, {"d"}, "dead1"));
  g.add_node(make_node("Mul", {"d", "r"}, {"e"}, "dead2"));
  g.add_node(make_node("Neg", {"a"}, {"y"}, "out"));
  g.add_output("y");
  g.finalize();
  PassStats st;
  Graph out = eliminate_dead_nodes(g, &st);
  CHECK(out.num_nodes() == 2);
  CHECK(ops_in_order(out) == std::vector<std::string>{"Relu", "Neg"});
  CHECK(st.counts["nodes removed"] == 2);
  CHECK(st.counts["constant weights removed"] == 1);
  CHECK(!out.has_tensor("c"));
  CHECK(out.has_tensor("r"));  // run-time weights stay
  CHECK(out.inputs == std::vector<std::string>{"x"});
  CHECK(max_output_difference(g, out) == 0.0);
}

TEST_CASE("eliminate_dead_nodes keeps every node feeding an output, and multi-output nodes whole") {
  Graph g;
  g.name = "keep";
  g.add_input("x", {DType::F32, {4, 2}});
  g.add_node(make_node("Split", {"x"}, {"p", "q"}, "split", {{"axis", 0}}));
  g.add_node(make_node("Exp", {"p"}, {"a"}, "exp"));
  g.add_node(make_node("Neg", {"a"}, {"y"}, "neg"));
  g.add_node(make_node("Relu", {"x"}, {"z"}, "relu"));
  g.add_output("y");
  g.add_output("z");
  g.finalize();
  PassStats st;
  Graph out = eliminate_dead_nodes(g, &st);
  CHECK(out.num_nodes() == 4);
  CHECK(st.changes == 0);
  CHECK(out.has_tensor("q"));
  CHECK(max_output_difference(g, out) == 0.0);
}
}
