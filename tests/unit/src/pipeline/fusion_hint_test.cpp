// The `fuse` hint: "none", explicit groups honoured, and bad or illegal groups refused with the hint's pointer.
#include "src/pipeline/compile_graph.h"

#include "tests/unit/src/pipeline/hint_json.h"

#include <doctest/doctest.h>

using namespace atl;

namespace {

Node node(std::string op, std::vector<std::string> in, std::string out, std::string name) {
  Node n;
  n.op = std::move(op);
  n.inputs = std::move(in);
  n.outputs = {std::move(out)};
  n.name = std::move(name);
  return n;
}

/// a = Relu(x); b = Sigmoid(a); c = Add(a, b); d = Neg(c)
Graph diamond(nlohmann::json fuse) {
  Graph g;
  g.name = "diamond";
  g.pointer = "/graphs/0";
  g.add_input("x", {DType::F32, {4, 8}});
  g.add_node(node("Relu", {"x"}, "a", "a"));
  g.add_node(node("Sigmoid", {"a"}, "b", "b"));
  g.add_node(node("Add", {"a", "b"}, "c", "c"));
  g.add_node(node("Neg", {"c"}, "d", "d"));
  g.add_output("d");
  g.schedule.fuse = test::fuse_hint(fuse);
  g.finalize();
  return g;
}

std::vector<std::vector<std::string>> names(const Graph &g, const std::vector<std::vector<NodeId>> &cs) {
  std::vector<std::vector<std::string>> out;
  for (const auto &c : cs) {
    out.emplace_back();
    for (NodeId v : c) out.back().push_back(g.node(v).name);
  }
  return out;
}

using Names = std::vector<std::vector<std::string>>;

}  // namespace

TEST_SUITE("src") {
TEST_CASE("fuse hint: auto fuses, none keeps one node per cluster") {
  Graph g = diamond(nullptr);
  CHECK(names(g, plan_clusters(g).fusion.clusters) == Names{{"a", "b", "c", "d"}});
  Graph n = diamond("none");
  ClusterPlan p = plan_clusters(n);
  CHECK(names(n, p.fusion.clusters) == Names{{"a"}, {"b"}, {"c"}, {"d"}});
  REQUIRE(p.fusion.unfused.size() == 4);
  CHECK(p.fusion.unfused[0].reason == "fuse: none");
}

TEST_CASE("fuse hint: explicit groups are exactly the clusters, unnamed nodes alone") {
  Graph g = diamond(nlohmann::json::parse(R"([["b", "c"]])"));
  ClusterPlan p = plan_clusters(g);
  CHECK(names(g, p.fusion.clusters) == Names{{"a"}, {"b", "c"}, {"d"}});
  CHECK(p.fusion.unfused.front().reason == "not in one `fuse` group");
}

TEST_CASE("fuse hint: a group that leaves and re-enters is refused, naming the path and the hint") {
  Graph g = diamond(nlohmann::json::parse(R"([["a", "c"]])"));
  CHECK_THROWS_WITH_AS(plan_clusters(g),
                       doctest::Contains("fuse group 0 [a, c] cannot be one kernel: the path a -> b -> c leaves the "
                                         "group at b (Sigmoid) and re-enters it at c"),
                       UserError);
  try {
    plan_clusters(g);
  } catch (const UserError &e) {
    CHECK(std::string(e.what()).find("/graphs/0/schedule/fuse") != std::string::npos);
  }
}

TEST_CASE("fuse hint: unknown and repeated nodes are refused") {
  CHECK_THROWS_WITH_AS(plan_clusters(diamond(nlohmann::json::parse(R"([["a", "zz"]])"))),
                       doctest::Contains("fuse group 0: unknown node 'zz'"), UserError);
  CHECK_THROWS_WITH_AS(plan_clusters(diamond(nlohmann::json::parse(R"([["a", "b"], ["b", "c"]])"))),
                       doctest::Contains("fuse group 1: node 'b' is in more than one group"), UserError);
}

TEST_CASE("fuse hint: groups that depend on each other are refused") {
  // a1 -> b1 and b2 -> a2: {a1, a2} and {b1, b2} are each fine, but each needs the other first.
  Graph g;
  g.name = "cross";
  g.pointer = "/graphs/0";
  g.add_input("x", {DType::F32, {4}});
  g.add_node(node("Relu", {"x"}, "t1", "a1"));
  g.add_node(node("Neg", {"t1"}, "y1", "b1"));
  g.add_node(node("Exp", {"x"}, "t2", "b2"));
  g.add_node(node("Abs", {"t2"}, "y2", "a2"));
  g.add_output("y1");
  g.add_output("y2");
  g.schedule.fuse = test::fuse_hint(nlohmann::json::parse(R"([["a1", "a2"], ["b1", "b2"]])"));
  g.finalize();
  CHECK_THROWS_WITH_AS(plan_clusters(g), doctest::Contains("the fuse groups cannot run in any order: the groups {a1, a2} and {b1, b2} depend on each other"),
                       UserError);
}

TEST_CASE("fuse hint: explicit groups compile to that many kernels") {
  Graph g = diamond(nlohmann::json::parse(R"([["a", "b"], ["c", "d"]])"));
  CompiledGraph cg = compile_graph(g, CompileOptions{});
  REQUIRE(cg.clusters.size() == 2);
  CHECK(cg.clusters[0].name == "a");
  CHECK(cg.clusters[1].name == "c");
}
}
