// fuse_graph: the clusters automatic fusion chooses and the reasons it gives for the rest.
#include "graph/fusion/fuse_graph.h"

#include "fusion_graphs.h"

#include <doctest/doctest.h>

using namespace atl;
using namespace atl::test;
using namespace atl::fusion;

using Names = std::vector<std::vector<std::string>>;

namespace {

FusionOptions with_epilogues() {
  FusionOptions o;
  o.fuse_epilogues = true;
  return o;
}

std::string reason_of(const Graph &g, const FusionResult &r, const std::string &from, const std::string &to) {
  for (const UnfusedEdge &e : r.unfused)
    if (g.node(e.from).name == from && g.node(e.to).name == to) return e.reason;
  return "<fused>";
}

}  // namespace

TEST_SUITE("graph") {
TEST_CASE("fuse_graph: with fuse_epilogues off a Conv runs alone and its BatchNormalization and Relu fuse") {
  Graph g = conv_bn_relu_graph();
  FusionOptions off;
  off.fuse_epilogues = false;
  FusionResult r = fuse_graph(g, {}, off);
  CHECK(cluster_names(g, r.clusters) == Names{{"conv"}, {"bn", "relu"}});
  REQUIRE(r.unfused.size() == 1);
  CHECK(r.unfused[0].reason.find("runs alone") != std::string::npos);
  // By default the three are one kernel.
  CHECK(cluster_names(g, fuse_graph(g, {}).clusters) == Names{{"conv", "bn", "relu"}});
}

TEST_CASE("fuse_graph: with epilogues, conv, BatchNormalization and Relu become one kernel") {
  Graph g = conv_bn_relu_graph();
  FusionResult r = fuse_graph(g, {}, with_epilogues());
  CHECK(cluster_names(g, r.clusters) == Names{{"conv", "bn", "relu"}});
  CHECK(r.unfused.empty());
}

TEST_CASE("fuse_graph: a diamond fuses whole") {
  Graph g = diamond_graph();
  FusionResult r = fuse_graph(g, {});
  CHECK(cluster_names(g, r.clusters) == Names{{"a", "b", "c"}});
}

TEST_CASE("fuse_graph: a residual block keeps two convolutions apart and fuses the Add into the second") {
  Graph g;
  g.name = "residual";
  g.add_input("x", {DType::F32, {1, 4, 6, 6}});
  g.add_weight("w1", {DType::F32, {4, 4, 3, 3}});
  g.add_weight("w2", {DType::F32, {4, 4, 3, 3}});
  g.add_node(make_node("Conv", {"x", "w1"}, {"c1"}, "conv1", {{"pads", {1, 1, 1, 1}}}));
  g.add_node(make_node("Relu", {"c1"}, {"r1"}, "relu1"));
  g.add_node(make_node("Conv", {"r1", "w2"}, {"c2"}, "conv2", {{"pads", {1, 1, 1, 1}}}));
  g.add_node(make_node("Add", {"c2", "x"}, {"s"}, "add"));
  g.add_node(make_node("Relu", {"s"}, {"y"}, "relu2"));
  g.add_output("y");
  g.finalize();
  FusionResult r = fuse_graph(g, {}, with_epilogues());
  CHECK(cluster_names(g, r.clusters) == Names{{"conv1", "relu1"}, {"conv2", "add", "relu2"}});
  REQUIRE(r.unfused.size() == 1);
  CHECK(r.unfused[0].tensor == "r1");
  CHECK(r.unfused[0].reason.find("heavy operators") != std::string::npos);
}

TEST_CASE("fuse_graph: an elementwise producer and consumers join a Softmax") {
  Graph g;
  g.name = "attn";
  g.add_input("x", {DType::F32, {4, 8}});
  g.add_weight("scale", {DType::F32, {1}});
  g.add_node(make_node("Mul", {"x", "scale"}, {"s"}, "scale"));
  g.add_node(make_node("Softmax", {"s"}, {"p"}, "softmax", {{"axis", -1}}));
  g.add_node(make_node("Neg", {"p"}, {"y"}, "neg"));
  g.add_output("y");
  g.finalize();
  FusionResult r = fuse_graph(g, {});
  CHECK(cluster_names(g, r.clusters) == Names{{"scale", "softmax", "neg"}});
}

TEST_CASE("fuse_graph: a tensor that is also a graph output still fuses (multi-output cluster)") {
  Graph g;
  g.name = "multi";
  g.add_input("x", {DType::F32, {16}});
  g.add_node(make_node("Relu", {"x"}, {"a"}, "relu"));
  g.add_node(make_node("Exp", {"a"}, {"b"}, "exp"));
  g.add_node(make_node("Neg", {"a"}, {"c"}, "neg"));
  g.add_output("a");
  g.add_output("b");
  g.add_output("c");
  g.finalize();
  FusionResult r = fuse_graph(g, {});
  REQUIRE(r.clusters.size() == 1);
  CHECK(r.clusters[0].size() == 3);
}

TEST_CASE("fuse_graph: views are in no cluster and the edges through them are reported") {
  Graph g;
  g.name = "view";
  g.add_input("x", {DType::F32, {4, 4}});
  g.add_node(make_node("Relu", {"x"}, {"a"}, "relu"));
  g.add_node(make_node("Reshape", {"a"}, {"b"}, "flat", {{"shape", {16}}}));
  g.add_node(make_node("Neg", {"b"}, {"y"}, "neg"));
  g.add_output("y");
  g.finalize();
  NodeId flat = node_named(g, "flat");
  FusionResult r = fuse_graph(g, {flat});
  CHECK(cluster_names(g, r.clusters) == Names{{"relu"}, {"neg"}});
  CHECK(reason_of(g, r, "relu", "flat") == "flat (Reshape) is a view: no kernel");
  CHECK(reason_of(g, r, "flat", "neg") == "flat (Reshape) is a view: no kernel");
}

TEST_CASE("fuse_graph: matmul chain reasons name the rule") {
  Graph g;
  g.name = "mlp";
  g.add_input("x", {DType::F32, {4, 8}});
  g.add_weight("w1", {DType::F32, {8, 8}});
  g.add_weight("b1", {DType::F32, {8}});
  g.add_weight("w2", {DType::F32, {8, 8}});
  g.add_node(make_node("MatMul", {"x", "w1"}, {"h"}, "fc1"));
  g.add_node(make_node("Add", {"h", "b1"}, {"hb"}, "bias1"));
  g.add_node(make_node("Relu", {"hb"}, {"a"}, "relu1"));
  g.add_node(make_node("MatMul", {"a", "w2"}, {"y"}, "fc2"));
  g.add_output("y");
  g.finalize();
  FusionResult r = fuse_graph(g, {}, with_epilogues());
  CHECK(cluster_names(g, r.clusters) == Names{{"fc1", "bias1", "relu1"}, {"fc2"}});
  CHECK(reason_of(g, r, "relu1", "fc2").find("heavy operators") != std::string::npos);
}

TEST_CASE("clusters_from_groups: given groups in call order, every other edge with the given reason") {
  Graph g = conv_bn_relu_graph();
  std::vector<NodeId> alone{0, 1, 2};
  FusionResult r = clusters_from_groups(g, alone, {}, "fuse: none");
  CHECK(cluster_names(g, r.clusters) == Names{{"conv"}, {"bn"}, {"relu"}});
  REQUIRE(r.unfused.size() == 2);
  CHECK(r.unfused[0].reason == "fuse: none");
}
}
