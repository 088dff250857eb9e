// check_legality: re-entering paths, cycles between groups, call order of groups.
#include "graph/fusion/check_legality.h"

#include "fusion_graphs.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace atl;
using namespace atl::test;
using namespace atl::fusion;

TEST_SUITE("graph") {
TEST_CASE("legality: fusing the two ends of a diamond without the middle is refused") {
  Graph g = diamond_graph();
  NodeId a = node_named(g, "a"), b = node_named(g, "b"), c = node_named(g, "c");
  std::string r = find_reentry(g, {a, c});
  CHECK(r.find("the path a -> b -> c leaves the group at b (Sigmoid) and re-enters it at c") != std::string::npos);
  CHECK(find_reentry(g, {a, b, c}).empty());
  CHECK(find_reentry(g, {a, b}).empty());
  CHECK(find_reentry(g, {b, c}).empty());
}

TEST_CASE("legality: two convex groups that depend on each other form a cycle") {
  Graph g;
  g.name = "cross";
  g.add_input("x", {DType::F32, {4}});
  g.add_node(make_node("Relu", {"x"}, {"t1"}, "a1"));
  g.add_node(make_node("Neg", {"t1"}, {"t2"}, "b1"));
  g.add_node(make_node("Exp", {"x"}, {"t3"}, "b2"));
  g.add_node(make_node("Add", {"t3", "t2"}, {"y"}, "a2"));
  g.add_output("y");
  g.finalize();
  NodeId a1 = node_named(g, "a1"), a2 = node_named(g, "a2"), b1 = node_named(g, "b1"), b2 = node_named(g, "b2");
  // {a1, a2} re-enters through b1; {b1, b2} has no path between them.
  CHECK_FALSE(find_reentry(g, {a1, a2}).empty());
  std::vector<NodeId> group_of(4);
  group_of[a1] = group_of[b2] = a1;  // {a1, b2} and {b1, a2}: a1 -> b1 and b2 -> a2: fine
  group_of[b1] = group_of[a2] = b1;
  CHECK(find_group_cycle(g, group_of).empty());
  std::vector<std::vector<NodeId>> order = order_groups(g, group_of, {});
  REQUIRE(order.size() == 2);
  CHECK(std::count(order[0].begin(), order[0].end(), a1) == 1);
  // {a1, a2} with {b1, b2}: a1 -> b1 and b2 -> a2 ... a2 depends on b1's group and b1 on a1's: a cycle.
  group_of[a1] = group_of[a2] = a1;
  group_of[b1] = group_of[b2] = b1;
  CHECK(find_group_cycle(g, group_of) == "the groups {a1, a2} and {b1, b2} depend on each other (a cycle between groups)");
}

TEST_CASE("legality: groups run producers first, skipped nodes are left out") {
  Graph g = conv_bn_relu_graph();
  std::vector<NodeId> group_of{0, 1, 2};
  std::vector<std::vector<NodeId>> order = order_groups(g, group_of, {node_named(g, "bn")});
  REQUIRE(order.size() == 2);
  CHECK(g.node(order[0][0]).name == "conv");
  CHECK(g.node(order[1][0]).name == "relu");
}

TEST_CASE("legality: groups run depth first, so a consumer runs soon after what it reads") {
  // x -> a0 -> b0 -> c0 and x -> a1 -> b1 -> c1, then join(c0, c1); p is a
  // root (a weight transform) that b0 and b1 read. Breadth first would run
  // a0 and a1 before b0 (both a-tensors live at once); depth first runs
  // each chain to its end first.
  Graph g;
  g.name = "bands";
  g.add_input("x", {DType::F32, {4, 4}});
  g.add_weight("w", {DType::F32, {4, 4}});
  g.add_node(make_node("Relu", {"x"}, {"a0"}, "a0"));
  g.add_node(make_node("Relu", {"x"}, {"a1"}, "a1"));
  g.add_node(make_node("Neg", {"w"}, {"p"}, "p"));
  g.add_node(make_node("Add", {"a0", "p"}, {"b0"}, "b0"));
  g.add_node(make_node("Add", {"a1", "p"}, {"b1"}, "b1"));
  g.add_node(make_node("Exp", {"b0"}, {"c0"}, "c0"));
  g.add_node(make_node("Exp", {"b1"}, {"c1"}, "c1"));
  g.add_node(make_node("Add", {"c0", "c1"}, {"y"}, "join"));
  g.add_output("y");
  g.finalize();
  std::vector<NodeId> group_of(g.num_nodes());
  for (NodeId v = 0; v < g.num_nodes(); ++v) group_of[v] = v;
  std::vector<std::string> names;
  for (const auto &grp : order_groups(g, group_of, {})) names.push_back(g.node(grp.front()).name);
  REQUIRE(names.size() == 8);
  CHECK(names[0] == "p");  // a group that reads only weights first
  const auto at = [&](const char *n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
  // One chain runs to its end before the other starts.
  const bool first0 = at("a0") < at("a1");
  const std::string f = first0 ? "0" : "1", s = first0 ? "1" : "0";
  CHECK(at(("b" + f).c_str()) == at(("a" + f).c_str()) + 1);
  CHECK(at(("c" + f).c_str()) == at(("b" + f).c_str()) + 1);
  CHECK(at(("a" + s).c_str()) == at(("c" + f).c_str()) + 1);
  CHECK(names.back() == "join");
}
}
