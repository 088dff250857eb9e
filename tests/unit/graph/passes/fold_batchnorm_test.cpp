// fold_batchnorm: BN folded into Conv, Gemm and MatMul with constant weights; refused otherwise.
#include "graph/passes/fold_batchnorm.h"

#include "run_graph.h"

#include <doctest/doctest.h>

using namespace atl;
using namespace atl::test;

namespace {

/// BN parameters for `c` channels named bn_scale/bn_b/bn_mean/bn_var; var > 0.
void add_bn_params(Graph &g, std::int64_t c, bool constant = true) {
  auto data = [&](std::uint64_t seed, double lo) -> std::optional<std::vector<double>> {
    if (!constant) return std::nullopt;
    std::vector<double> v = random_values(static_cast<std::size_t>(c), seed);
    for (double &x : v) x = lo > 0 ? lo + (x + 1.0) : x;
    return v;
  };
  g.add_weight("bn_scale", {DType::F32, {c}}, {}, data(21, 0));
  g.add_weight("bn_b", {DType::F32, {c}}, {}, data(22, 0));
  g.add_weight("bn_mean", {DType::F32, {c}}, {}, data(23, 0));
  g.add_weight("bn_var", {DType::F32, {c}}, {}, data(24, 0.5));
}

Node bn_node(const std::string &in, const std::string &out) {
  return make_node("BatchNormalization", {in, "bn_scale", "bn_b", "bn_mean", "bn_var"}, {out}, "bn",
                   {{"epsilon", 1e-3}});
}

}  // namespace

TEST_SUITE("graph") {
TEST_CASE("fold_batchnorm folds BN into a Conv with constant weights and bias") {
  Graph g;
  g.name = "conv_bn";
  g.add_input("x", {DType::F32, {1, 3, 6, 6}});
  g.add_weight("W", {DType::F32, {4, 3, 3, 3}}, {}, random_values(108, 1));
  g.add_weight("b", {DType::F32, {4}}, {}, random_values(4, 2));
  add_bn_params(g, 4);
  g.add_node(make_node("Conv", {"x", "W", "b"}, {"t"}, "conv", {{"pads", {1, 1, 1, 1}}}));
  g.add_node(bn_node("t", "y"));
  g.add_output("y");
  g.finalize();
  PassStats st;
  Graph out = fold_batchnorm(g, &st);
  CHECK(st.counts["batchnorms folded"] == 1);
  CHECK(ops_in_order(out) == std::vector<std::string>{"Conv"});
  const Node &conv = out.node(out.order()[0]);
  CHECK(conv.name == "conv");
  CHECK(conv.outputs == std::vector<std::string>{"y"});
  CHECK(conv.inputs == std::vector<std::string>{"x", "conv_bn_W", "conv_bn_B"});
  CHECK(out.tensor("y").type.str() == "f32[1, 4, 6, 6]");
  CHECK(max_output_difference(g, out) < 1e-5);
}

TEST_CASE("fold_batchnorm folds BN into a Conv without bias, a grouped Conv") {
  Graph g;
  g.name = "conv_nobias";
  g.add_input("x", {DType::F32, {2, 4, 5, 5}});
  g.add_weight("W", {DType::F32, {4, 2, 3, 3}}, {}, random_values(72, 3));
  add_bn_params(g, 4);
  g.add_node(make_node("Conv", {"x", "W"}, {"t"}, "conv", {{"group", 2}}));
  g.add_node(bn_node("t", "y"));
  g.add_output("y");
  g.finalize();
  Graph out = fold_batchnorm(g);
  CHECK(out.num_nodes() == 1);
  CHECK(max_output_difference(g, out) < 1e-5);
}

TEST_CASE("fold_batchnorm folds BN into Gemm (transB, alpha, beta, C along M) and MatMul") {
  for (int variant = 0; variant < 3; ++variant) {
    CAPTURE(variant);
    Graph g;
    g.name = "gemm_bn";
    g.add_input("a", {DType::F32, {3, 5}});
    if (variant == 2) {
      g.add_weight("B", {DType::F32, {5, 4}}, {}, random_values(20, 4));
      g.add_node(make_node("MatMul", {"a", "B"}, {"t"}, "mm"));
    } else if (variant == 1) {
      g.add_weight("B", {DType::F32, {4, 5}}, {}, random_values(20, 4));
      g.add_weight("C", {DType::F32, {3, 1}}, {}, random_values(3, 5));
      g.add_node(make_node("Gemm", {"a", "B", "C"}, {"t"}, "mm", {{"transB", 1}, {"alpha", 0.5}, {"beta", 2.0}}));
    } else {
      g.add_weight("B", {DType::F32, {5, 4}}, {}, random_values(20, 4));
      g.add_weight("C", {DType::F32, {4}}, {}, random_values(4, 5));
      g.add_node(make_node("Gemm", {"a", "B", "C"}, {"t"}, "mm", {{"beta", 0.5}}));
    }
    add_bn_params(g, 4);
    g.add_node(bn_node("t", "y"));
    g.add_output("y");
    g.finalize();
    PassStats st;
    Graph out = fold_batchnorm(g, &st);
    CHECK(st.counts["batchnorms folded"] == 1);
    CHECK(ops_in_order(out) == std::vector<std::string>{"Gemm"});
    CHECK(out.node(out.order()[0]).name == "mm");
    CHECK(out.tensor("y").type.str() == "f32[3, 4]");
    CHECK(max_output_difference(g, out) < 1e-5);
  }
}

TEST_CASE("fold_batchnorm does not fold when the conv output has another consumer") {
  Graph g;
  g.name = "two_uses";
  g.add_input("x", {DType::F32, {1, 2, 4, 4}});
  g.add_weight("W", {DType::F32, {2, 2, 1, 1}}, {}, random_values(4, 6));
  add_bn_params(g, 2);
  g.add_node(make_node("Conv", {"x", "W"}, {"t"}, "conv"));
  g.add_node(bn_node("t", "y"));
  g.add_node(make_node("Relu", {"t"}, {"z"}, "relu"));
  g.add_output("y");
  g.add_output("z");
  g.finalize();
  PassStats st;
  Graph out = fold_batchnorm(g, &st);
  CHECK(out.num_nodes() == 3);
  CHECK(st.changes == 0);
  CHECK(st.counts["not folded: producer output has other uses"] == 1);
  CHECK(max_output_difference(g, out) == 0.0);
}

TEST_CASE("fold_batchnorm leaves run-time weights alone and says why") {
  Graph g;
  g.name = "runtime";
  g.add_input("x", {DType::F32, {1, 2, 4, 4}});
  g.add_weight("W", {DType::F32, {2, 2, 1, 1}});  // no inline data
  add_bn_params(g, 2);
  g.add_node(make_node("Conv", {"x", "W"}, {"t"}, "conv"));
  g.add_node(bn_node("t", "y"));
  g.add_output("y");
  g.finalize();
  PassStats st;
  Graph out = fold_batchnorm(g, &st);
  CHECK(ops_in_order(out) == std::vector<std::string>{"Conv", "BatchNormalization"});
  CHECK(st.changes == 0);
  CHECK(st.counts["not folded: weights are run-time values"] == 1);

  Graph g2;
  g2.name = "runtime_bn";
  g2.add_input("x", {DType::F32, {1, 2, 4, 4}});
  g2.add_weight("W", {DType::F32, {2, 2, 1, 1}}, {}, random_values(4, 6));
  add_bn_params(g2, 2, false);
  g2.add_node(make_node("Conv", {"x", "W"}, {"t"}, "conv"));
  g2.add_node(bn_node("t", "y"));
  g2.add_output("y");
  g2.finalize();
  PassStats st2;
  CHECK(fold_batchnorm(g2, &st2).num_nodes() == 2);
  CHECK(st2.counts["not folded: weights are run-time values"] == 1);
}
}
