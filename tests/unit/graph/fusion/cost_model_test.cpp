// cost_model: which candidate clusters the rules and the cost model accept, and why not.
#include "graph/fusion/cost_model.h"

#include "fusion_graphs.h"

#include <doctest/doctest.h>

using namespace atl;
using namespace atl::test;
using namespace atl::fusion;

namespace {

/// x -> Relu -> MatMul(w1) -> MatMul(w2) -> Transpose; and a Softmax branch.
/// Options with epilogues fused into contractions.
FusionOptions with_epilogues() {
  FusionOptions o;
  o.fuse_epilogues = true;
  return o;
}

Graph matmul_graph() {
  Graph g;
  g.name = "mm";
  g.add_input("x", {DType::F32, {8, 16}});
  g.add_weight("w1", {DType::F32, {16, 16}});
  g.add_weight("w2", {DType::F32, {16, 16}});
  g.add_node(make_node("Relu", {"x"}, {"r"}, "relu"));
  g.add_node(make_node("MatMul", {"r", "w1"}, {"m1"}, "mm1"));
  g.add_node(make_node("MatMul", {"m1", "w2"}, {"m2"}, "mm2"));
  g.add_node(make_node("Transpose", {"m2"}, {"t"}, "tr", {{"perm", {1, 0}}}));
  g.add_node(make_node("Mul", {"m1", "m1"}, {"sq"}, "sq"));
  g.add_node(make_node("Softmax", {"sq"}, {"p"}, "softmax"));
  g.add_output("t");
  g.add_output("p");
  g.finalize();
  return g;
}

}  // namespace

TEST_SUITE("graph") {
TEST_CASE("cost model: an epilogue chain into a convolution is accepted and saves bytes") {
  Graph g = conv_bn_relu_graph();
  ClusterVerdict v = judge_cluster(g, {0, 1, 2}, with_epilogues());
  CHECK(v.ok);
  // c and n (1x4x8x8 f32 = 1 KiB each) are written and read inside: 2 KiB each.
  CHECK(v.bytes_saved == 4 * 1024);
  CHECK(v.statements >= 3);
}

TEST_CASE("cost model: by default a contraction runs alone (measured slower with its epilogue)") {
  Graph g = conv_bn_relu_graph();
  ClusterVerdict v = judge_cluster(g, {0, 1});
  CHECK_FALSE(v.ok);
  CHECK(v.reason.find("the contraction conv (Conv) runs alone: with bn (BatchNormalization)") != std::string::npos);
  CHECK(judge_cluster(g, {1, 2}).ok);
}

TEST_CASE("cost model: two contractions are not fused") {
  Graph g = matmul_graph();
  ClusterVerdict v = judge_cluster(g, {node_named(g, "mm1"), node_named(g, "mm2")});
  CHECK_FALSE(v.ok);
  CHECK(v.reason.find("2 heavy operators in one kernel (mm1 (MatMul), mm2 (MatMul))") != std::string::npos);
}

TEST_CASE("cost model: a contraction's producer and an injective epilogue are refused") {
  Graph g = matmul_graph();
  ClusterVerdict v = judge_cluster(g, {node_named(g, "relu"), node_named(g, "mm1")}, with_epilogues());
  CHECK_FALSE(v.ok);
  CHECK(v.reason.find("relu (Relu) feeds the contraction mm1 (MatMul)") != std::string::npos);
  v = judge_cluster(g, {node_named(g, "mm2"), node_named(g, "tr")}, with_epilogues());
  CHECK_FALSE(v.ok);
  CHECK(v.reason.find("tr (Transpose) is injective") != std::string::npos);
}

TEST_CASE("cost model: a reduction takes its elementwise producer") {
  Graph g = matmul_graph();
  ClusterVerdict v = judge_cluster(g, {node_named(g, "sq"), node_named(g, "softmax")});
  CHECK(v.ok);
  CHECK(v.bytes_saved > 0);
}

TEST_CASE("cost model: the statement cap splits long chains") {
  Graph g = diamond_graph();
  FusionOptions o;
  o.max_statements = 2;
  ClusterVerdict v = judge_cluster(g, {0, 1, 2}, o);
  CHECK_FALSE(v.ok);
  CHECK(v.reason.find("statements (limit 2)") != std::string::npos);
  CHECK(judge_cluster(g, {0, 1, 2}).ok);
}

TEST_CASE("cost model: an opaque Compute node stays alone") {
  Graph g;
  g.name = "opaque";
  g.add_input("x", {DType::F32, {4}});
  g.add_node(make_node("Relu", {"x"}, {"a"}, "relu"));
  g.add_node(make_node("Compute", {"a"}, {"y"}, "c", {{"expr", "y(i) = a(i) * 2"}}));
  g.add_output("y");
  g.finalize();
  ClusterVerdict v = judge_cluster(g, {0, 1});
  CHECK_FALSE(v.ok);
  CHECK(v.reason.find("c (Compute) is opaque") != std::string::npos);
}
}
