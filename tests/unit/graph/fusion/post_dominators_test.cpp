// post_dominators: immediate post-dominators of chains, diamonds, outputs and branches.
#include "graph/fusion/post_dominators.h"

#include "fusion_graphs.h"

#include <doctest/doctest.h>

using namespace atl;
using namespace atl::test;
using atl::fusion::immediate_post_dominators;

TEST_SUITE("graph") {
TEST_CASE("post-dominators of a diamond: both ends meet at the join") {
  Graph g = diamond_graph();
  auto ipdom = immediate_post_dominators(g);
  NodeId a = node_named(g, "a"), b = node_named(g, "b"), c = node_named(g, "c");
  REQUIRE(ipdom[a]);
  CHECK(*ipdom[a] == c);
  REQUIRE(ipdom[b]);
  CHECK(*ipdom[b] == c);
  CHECK_FALSE(ipdom[c]);
}

TEST_CASE("post-dominators: a node feeding two outputs has none; a graph output has none") {
  Graph g;
  g.name = "branch";
  g.add_input("x", {DType::F32, {4}});
  g.add_node(make_node("Relu", {"x"}, {"a"}, "a"));
  g.add_node(make_node("Exp", {"a"}, {"p"}, "p"));
  g.add_node(make_node("Neg", {"a"}, {"q"}, "q"));
  g.add_node(make_node("Abs", {"q"}, {"r"}, "r"));
  g.add_output("p");
  g.add_output("r");
  g.add_output("q");
  g.finalize();
  auto ipdom = immediate_post_dominators(g);
  CHECK_FALSE(ipdom[node_named(g, "a")]);
  CHECK_FALSE(ipdom[node_named(g, "p")]);
  CHECK_FALSE(ipdom[node_named(g, "q")]);  // q is an output itself
  CHECK_FALSE(ipdom[node_named(g, "r")]);
}

TEST_CASE("post-dominators of a chain are the next nodes") {
  Graph g = conv_bn_relu_graph();
  auto ipdom = immediate_post_dominators(g);
  REQUIRE(ipdom[node_named(g, "conv")]);
  CHECK(*ipdom[node_named(g, "conv")] == node_named(g, "bn"));
  CHECK(*ipdom[node_named(g, "bn")] == node_named(g, "relu"));
  CHECK_FALSE(ipdom[node_named(g, "relu")]);
}
}
