// Small graphs shared by the fusion unit tests.
#pragma once

#include "graph/ir/graph.h"

#include "../passes/run_graph.h"

#include <string>
#include <vector>

namespace atl::test {

/// a = Relu(x); b = Sigmoid(a); y = Add(a, b): a diamond a -> {b, y}, b -> y.
inline Graph diamond_graph() {
  Graph g;
  g.name = "diamond";
  g.add_input("x", {DType::F32, {4, 8}});
  g.add_node(make_node("Relu", {"x"}, {"a"}, "a"));
  g.add_node(make_node("Sigmoid", {"a"}, {"b"}, "b"));
  g.add_node(make_node("Add", {"a", "b"}, {"y"}, "c"));
  g.add_output("y");
  g.finalize();
  return g;
}

/// conv -> bn -> relu (run-time weights).
inline Graph conv_bn_relu_graph() {
  Graph g;
  g.name = "cbr";
  g.add_input("x", {DType::F32, {1, 3, 8, 8}});
  g.add_weight("w", {DType::F32, {4, 3, 3, 3}});
  for (const char *p : {"s", "b", "m", "v"}) g.add_weight(p, {DType::F32, {4}}, std::string(p) == "v" ? "uniform(0.5,1.5)" : "");
  g.add_node(make_node("Conv", {"x", "w"}, {"c"}, "conv", {{"pads", {1, 1, 1, 1}}}));
  g.add_node(make_node("BatchNormalization", {"c", "s", "b", "m", "v"}, {"n"}, "bn"));
  g.add_node(make_node("Relu", {"n"}, {"y"}, "relu"));
  g.add_output("y");
  g.finalize();
  return g;
}

/// The node named `name`.
inline NodeId node_named(const Graph &g, const std::string &name) {
  for (NodeId v = 0; v < g.num_nodes(); ++v)
    if (g.node(v).name == name) return v;
  throw std::runtime_error("no node " + name);
}

/// Names of the nodes of each cluster.
inline std::vector<std::vector<std::string>> cluster_names(const Graph &g, const std::vector<std::vector<NodeId>> &cs) {
  std::vector<std::vector<std::string>> out;
  for (const auto &c : cs) {
    out.emplace_back();
    for (NodeId v : c) out.back().push_back(g.node(v).name);
  }
  return out;
}

}  // namespace atl::test
