// cost_model: which candidate clusters the rules and the cost model accept, and why not.
#include "graph/fusion/cost_model.h"
#include "graph/fusion/node_facts.h"

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

TEST_CASE("cost model: by default a contraction takes its epilogue; with fuse_epilogues off it runs alone") {
  Graph g = conv_bn_relu_graph();
  CHECK(judge_cluster(g, {0, 1}).ok);
  CHECK(judge_cluster(g, {0, 1, 2}).ok);
  FusionOptions off;
  off.fuse_epilogues = false;
  ClusterVerdict v = judge_cluster(g, {0, 1}, off);
  CHECK_FALSE(v.ok);
  CHECK(v.reason.find("the contraction conv (Conv) runs alone: with bn (BatchNormalization)") != std::string::npos);
  CHECK(judge_cluster(g, {1, 2}, off).ok);
}

TEST_CASE("cost model: two contractions are not fused") {
  Graph g = matmul_graph();
  ClusterVerdict v = judge_cluster(g, {node_named(g, "mm1"), node_named(g, "mm2")});
  CHECK_FALSE(v.ok);
  CHECK(v.reason.find("2 heavy operators in one kernel (mm1 (MatMul), mm2 (MatMul))") != std::string::npos);
}

TEST_CASE("cost model: a contraction's producer is refused, an injective epilogue taken") {
  Graph g = matmul_graph();
  ClusterVerdict v = judge_cluster(g, {node_named(g, "relu"), node_named(g, "mm1")}, with_epilogues());
  CHECK_FALSE(v.ok);
  CHECK(v.reason.find("relu (Relu) feeds the contraction mm1 (MatMul)") != std::string::npos);
  // The transpose of a contraction's result runs in the contraction's tiles.
  v = judge_cluster(g, {node_named(g, "mm2"), node_named(g, "tr")}, with_epilogues());
  CHECK(v.ok);
  FusionOptions off;
  off.fuse_epilogues = false;
  v = judge_cluster(g, {node_named(g, "mm2"), node_named(g, "tr")}, off);
  CHECK_FALSE(v.ok);
  CHECK(v.reason.find("the contraction mm2 (MatMul) runs alone") != std::string::npos);
  // Injective operators stay out of a reduction's kernel.
  v = judge_cluster(g, {node_named(g, "sq"), node_named(g, "softmax")});
  CHECK(v.ok);
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
  g.add_node(make_node("Compute", {"a"}, {"y"}, "c", {{"expr", "y(i) = a(3 - i) * 2 where i in 0:4"}}));
  g.add_output("y");
  g.finalize();
  ClusterVerdict v = judge_cluster(g, {0, 1});
  CHECK_FALSE(v.ok);
  CHECK(v.reason.find("c (Compute) is opaque") != std::string::npos);
}

TEST_CASE("cost model: a pointwise Compute node fuses like an elementwise operator") {
  Graph g;
  g.name = "pointwise";
  g.add_input("x", {DType::F32, {4, 3}});
  g.add_input("s", {DType::F32, {3}});
  g.add_node(make_node("Relu", {"x"}, {"a"}, "relu"));
  g.add_node(make_node("Compute", {"a", "s"}, {"y"}, "c", {{"expr", "y(i, j) = a(i, j) * s(j) + 1"}}));
  g.add_output("y");
  g.finalize();
  CHECK(judge_cluster(g, {0, 1}).ok);
}

TEST_CASE("compute_pattern: pointwise assignments, copies, contractions and the rest") {
  auto pattern = [](const std::string &expr, std::vector<std::string> inputs, std::vector<Shape> shapes) {
    Graph g;
    g.name = "p";
    for (std::size_t i = 0; i < inputs.size(); ++i) g.add_input(inputs[i], {DType::F32, to_sym_shape(shapes[i])});
    g.add_node(make_node("Compute", inputs, {"y"}, "c", {{"expr", expr}}));
    g.add_output("y");
    g.finalize();
    return node_kind(g, 0);
  };
  CHECK(pattern("y(i, j) = exp(a(i, j)) + b(i, j)", {"a", "b"}, {{2, 3}, {2, 3}}) == PatternKind::Elementwise);
  CHECK(pattern("y(i, j) = a(i, j) * s(j)", {"a", "s"}, {{2, 3}, {3}}) == PatternKind::Broadcast);
  CHECK(pattern("y(i, j) = a(j, i)", {"a"}, {{3, 3}}) == PatternKind::Injective);          // permuted copy
  CHECK(pattern("y(16 * i + l, h) = a(h, i, l) where i in 0:2, l in 0:16, h in 0:3", {"a"}, {{3, 2, 16}}) ==
        PatternKind::Injective);  // a layout conversion
  CHECK(pattern("y(i, j) = a(j, i) + 1", {"a"}, {{3, 3}}) == PatternKind::Opaque);         // permuted arithmetic
  CHECK(pattern("y(i, j) +=! a(i, k) * b(k, j)", {"a", "b"}, {{2, 4}, {4, 3}}) == PatternKind::OutFusable);  // contraction
  CHECK(pattern("y(i) +=! a(i, j)", {"a"}, {{2, 3}}) == PatternKind::Opaque);              // reduction
  CHECK(pattern("y(i) = guard(a(i - 1), 0) where i in 0:3", {"a"}, {{3}}) == PatternKind::Opaque);  // guarded
  CHECK(pattern("t(i) = a(i)\ny(i) = t(i)", {"a"}, {{3}}) == PatternKind::Opaque);        // two statements
  CHECK(pattern("y(i, j) = a(i, j) * guard(s(j + 1), 0) where i in 0:2, j in 0:3", {"a", "s"}, {{2, 3}, {3}}) ==
        PatternKind::Broadcast);  // a guarded per-column parameter (a padded channel block)
  CHECK(pattern("y(i) = a(i) where i in 0:2\ny(i + 2) = b(i) where i in 0:1", {"a", "b"}, {{2}, {1}}) ==
        PatternKind::Injective);  // copies into parts of one tensor (a conversion with a partial block)
  CHECK(pattern("y(i) = 2 * i where i in 0:3", {}, {}) == PatternKind::Opaque);            // reads nothing
}

TEST_CASE("cost model: two data movements chained in one kernel are refused, one with elementwise work is not") {
  Graph g;
  g.name = "moves";
  g.add_input("x", {DType::F32, {4, 8}});
  g.add_node(make_node("Transpose", {"x"}, {"t"}, "t1", {{"perm", {1, 0}}}));
  g.add_node(make_node("Relu", {"t"}, {"r"}, "relu"));
  g.add_node(make_node("Transpose", {"r"}, {"y"}, "t2", {{"perm", {1, 0}}}));
  g.add_output("y");
  g.finalize();
  const NodeId t1 = 0, relu = 1, t2 = 2;
  REQUIRE(node_kind(g, t1) == PatternKind::Injective);
  CHECK(judge_cluster(g, {t1, relu}).ok);
  CHECK(judge_cluster(g, {relu, t2}).ok);
  ClusterVerdict v = judge_cluster(g, {t1, relu, t2});
  CHECK_FALSE(v.ok);
  CHECK(v.reason.find("both move data") != std::string::npos);
}

TEST_CASE("cost model: a data movement that also reads another kernel's tensor is no epilogue of a contraction") {
  Graph g;
  g.name = "join";
  g.add_input("x", {DType::F32, {8, 16}});
  g.add_weight("w", {DType::F32, {16, 16}});
  g.add_node(make_node("MatMul", {"x", "w"}, {"m"}, "mm"));
  g.add_node(make_node("Relu", {"x"}, {"r"}, "relu"));
  g.add_node(make_node("Concat", {"m", "r"}, {"y"}, "join", {{"axis", 0}}));
  g.add_node(make_node("Transpose", {"m"}, {"t"}, "tr", {{"perm", {1, 0}}}));
  g.add_output("y");
  g.add_output("t");
  g.finalize();
  const NodeId mm = 0, join = 2, tr = 3;
  REQUIRE(node_kind(g, join) == PatternKind::Injective);
  ClusterVerdict v = judge_cluster(g, {mm, join}, with_epilogues());
  CHECK_FALSE(v.ok);
  CHECK(v.reason.find("moves data of another kernel") != std::string::npos);
  CHECK(judge_cluster(g, {mm, tr}, with_epilogues()).ok);  // a transpose of the product alone is an epilogue
}
}
