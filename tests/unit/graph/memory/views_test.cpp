// plan_views: relabellings alias their input; Concat is written in place only where legal.
#include "graph/memory/views.h"

#include <doctest/doctest.h>

#include <map>

using namespace atl;
using namespace atl::memory;

namespace {

Node node(std::string op, std::vector<std::string> in, std::vector<std::string> out, std::string name,
          nlohmann::json attrs = nlohmann::json::object()) {
  Node n;
  n.op = std::move(op);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.name = std::move(name);
  n.attrs = std::move(attrs);
  return n;
}

std::map<std::string, TensorAlias> by_tensor(const std::vector<TensorAlias> &v) {
  std::map<std::string, TensorAlias> m;
  for (const TensorAlias &a : v) m[a.tensor] = a;
  return m;
}

std::set<std::string> names(const Graph &g, const std::set<NodeId> &ids) {
  std::set<std::string> s;
  for (NodeId v : ids) s.insert(g.node(v).name);
  return s;
}

/// x[1, 4, 8] -> relu -> a[1, 4, 8], x -> neg -> b[1, 4, 8]; Concat(a, b) along `axis` -> c; exp(c) -> y.
Graph concat_graph(int axis, Shape shape = {1, 4, 8}) {
  Graph g;
  g.name = "cat";
  g.add_input("x", {DType::F32, to_sym_shape(shape)});
  g.add_node(node("Relu", {"x"}, {"a"}, "relu"));
  g.add_node(node("Neg", {"x"}, {"b"}, "neg"));
  g.add_node(node("Concat", {"a", "b"}, {"c"}, "cat", {{"axis", axis}}));
  g.add_node(node("Exp", {"c"}, {"y"}, "exp"));
  g.add_output("y");
  return g;
}

}  // namespace

TEST_SUITE("graph") {
TEST_CASE("plan_views: a chain of reshapes aliases the first input") {
  Graph g;
  g.name = "views";
  g.add_input("x", {DType::F32, {2, 3, 4}});
  g.add_node(node("Relu", {"x"}, {"a"}, "relu"));
  g.add_node(node("Flatten", {"a"}, {"f"}, "flat", {{"axis", 1}}));
  g.add_node(node("Unsqueeze", {"f"}, {"u"}, "unsq", {{"axes", {0}}}));
  g.add_node(node("Exp", {"u"}, {"y"}, "exp"));
  g.add_output("y");
  g.finalize();
  std::set<NodeId> skip;
  auto m = by_tensor(plan_views(g, &skip));
  CHECK(m["f"].base == "a");
  CHECK(m["u"].base == "a");
  CHECK(names(g, skip) == std::set<std::string>{"flat", "unsq"});
}

TEST_CASE("plan_views: Concat along the first non-unit axis is written in place") {
  for (int axis : {1, -2}) {
    Graph g = concat_graph(axis);
    g.finalize();
    std::set<NodeId> skip;
    auto m = by_tensor(plan_views(g, &skip));
    REQUIRE(m.size() == 2);
    CHECK(m["a"].base == "c");
    CHECK(m["a"].byte_offset == 0);
    CHECK(m["b"].base == "c");
    CHECK(m["b"].byte_offset == 4 * 8 * 4);
    CHECK(names(g, skip) == std::set<std::string>{"cat"});
  }
}

TEST_CASE("plan_views: Concat along an inner axis is not in place (inputs are not contiguous slabs)") {
  Graph g = concat_graph(2);
  g.finalize();
  std::set<NodeId> skip;
  CHECK(plan_views(g, &skip).empty());
  CHECK(skip.empty());
}

TEST_CASE("plan_views: Concat with a non-unit dimension before the axis is not in place") {
  Graph g = concat_graph(1, {2, 4, 8});
  g.finalize();
  CHECK(plan_views(g, nullptr).empty());
}

TEST_CASE("plan_views: Concat of a graph input or of a graph output is not in place") {
  {
    Graph g;
    g.name = "in";
    g.add_input("x", {DType::F32, {4, 8}});
    g.add_node(node("Relu", {"x"}, {"a"}, "relu"));
    g.add_node(node("Concat", {"a", "x"}, {"y"}, "cat", {{"axis", 0}}));
    g.add_output("y");
    g.finalize();
    CHECK(plan_views(g, nullptr).empty());
  }
  {
    Graph g = concat_graph(1);
    g.add_output("a");
    g.finalize();
    CHECK(plan_views(g, nullptr).empty());
  }
}

TEST_CASE("plan_views: Concat of an input that is a view, or has a view, is not in place") {
  {
    Graph g;
    g.name = "viewin";
    g.add_input("x", {DType::F32, {4, 8}});
    g.add_node(node("Relu", {"x"}, {"a"}, "relu"));
    g.add_node(node("Unsqueeze", {"a"}, {"u"}, "unsq", {{"axes", {0}}}));
    g.add_node(node("Neg", {"x"}, {"b0"}, "neg"));
    g.add_node(node("Unsqueeze", {"b0"}, {"b"}, "unsq2", {{"axes", {0}}}));
    g.add_node(node("Concat", {"u", "b"}, {"y"}, "cat", {{"axis", 0}}));
    g.add_output("y");
    g.finalize();
    std::set<NodeId> skip;
    auto m = by_tensor(plan_views(g, &skip));
    CHECK(m.size() == 2);  // the two unsqueezes only
    CHECK(!m.count("a"));
    CHECK(names(g, skip) == std::set<std::string>{"unsq", "unsq2"});
  }
  {
    Graph g = concat_graph(1);
    g.add_node(node("Flatten", {"a"}, {"fa"}, "flat", {{"axis", 1}}));
    g.add_output("fa");
    g.finalize();
    auto m = by_tensor(plan_views(g, nullptr));
    CHECK(m.size() == 1);
    CHECK(m["fa"].base == "a");
  }
}

TEST_CASE("plan_views: Concat of one tensor twice, or of a symbolic shape, is not in place") {
  {
    Graph g;
    g.name = "twice";
    g.add_input("x", {DType::F32, {4, 8}});
    g.add_node(node("Relu", {"x"}, {"a"}, "relu"));
    g.add_node(node("Concat", {"a", "a"}, {"c"}, "cat", {{"axis", 0}}));
    g.add_node(node("Exp", {"c"}, {"y"}, "exp"));
    g.add_output("y");
    g.finalize();
    CHECK(plan_views(g, nullptr).empty());
  }
  {
    Graph g;
    g.name = "sym";
    g.params["N"] = {1, 4};
    g.add_input("x", {DType::F32, {Dim::sym("N"), 8}});
    g.add_node(node("Relu", {"x"}, {"a"}, "relu"));
    g.add_node(node("Neg", {"x"}, {"b"}, "neg"));
    g.add_node(node("Concat", {"a", "b"}, {"c"}, "cat", {{"axis", 1}}));
    g.add_node(node("Exp", {"c"}, {"y"}, "exp"));
    g.add_output("y");
    g.finalize();
    CHECK(plan_views(g, nullptr).empty());
  }
}
}
