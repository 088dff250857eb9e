// pack_gemm_weights: a MatMul's weight laid out in column panels, one packed copy per weight; activations and odd widths left alone.
#include "graph/passes/pack_gemm_weights.h"

#include "run_graph.h"

#include <doctest/doctest.h>

using namespace atl;
using namespace atl::test;

namespace {

/// y = x W1 (x of rank `rank`), z = y W1 again (a shared weight), u = y W2,
/// v = x x^T-like product of two activations.
Graph gemms(int rank, std::int64_t n2, std::int64_t rows = 5) {
  Graph g;
  g.name = "gemms";
  SymShape xs = rank == 3 ? SymShape{2, rows, 32} : SymShape{rows, 32};
  g.add_input("x", {DType::F32, xs});
  g.add_input("a", {DType::F32, {32, 32}});
  g.add_weight("W1", {DType::F32, {32, 32}});
  g.add_weight("W2", {DType::F32, {32, n2}});
  g.add_node(make_node("MatMul", {"x", "W1"}, {"y"}, "mm1"));
  g.add_node(make_node("MatMul", {"y", "W1"}, {"z"}, "mm2"));
  g.add_node(make_node("MatMul", {"y", "W2"}, {"u"}, "mm3"));
  g.add_node(make_node("MatMul", {"x", "a"}, {"v"}, "act"));
  g.add_output("z");
  g.add_output("u");
  g.add_output("v");
  g.finalize();
  return g;
}

const Node &node_named(const Graph &g, const std::string &name) {
  for (NodeId v : g.order())
    if (g.node(v).name == name) return g.node(v);
  FAIL("no node " << name);
  return g.node(g.order()[0]);
}

}  // namespace

TEST_SUITE("graph") {
TEST_CASE("pack_gemm_weights: weights in panels of P columns, one copy per weight, same results") {
  for (int rank : {2, 3}) {
    Graph g = gemms(rank, 48);
    PassStats st;
    Graph out = pack_gemm_weights(g, &st, 16);
    CHECK(st.counts["weights packed"] == 2);
    CHECK(st.counts["matmuls reading packed weights"] == 3);
    CHECK(out.tensor("W1_panels").type.str() == TensorType{DType::F32, {2, 32, 16}}.str());
    CHECK(out.tensor("W2_panels").type.str() == TensorType{DType::F32, {3, 32, 16}}.str());
    const Node &mm2 = node_named(out, "mm2");
    CHECK(mm2.op == "Compute");
    CHECK(mm2.inputs == std::vector<std::string>{"y", "W1_panels"});
    CHECK(node_named(out, "W1_pack").inputs == std::vector<std::string>{"W1"});
    CHECK(node_named(out, "act").op == "MatMul");  // both operands are activations
    CHECK(out.tensor("u").type.str() == g.tensor("u").type.str());
    CHECK(max_output_difference(g, out) < 1e-5);
  }
}

TEST_CASE("pack_gemm_weights: widths that are not whole panels are padded (any rows); one panel and panel 0 are left alone") {
  PassStats st;
  Graph out = pack_gemm_weights(gemms(2, 40, 65), &st, 16);
  CHECK(node_named(out, "mm3").op == "Compute");
  CHECK(out.tensor("W2_panels").type.str() == TensorType{DType::F32, {3, 32, 16}}.str());
  CHECK(max_output_difference(gemms(2, 40, 65), out) < 1e-5);
  PassStats one;
  pack_gemm_weights(gemms(2, 16, 65), &one, 16);
  CHECK(one.counts["not packed: columns not more than one panel"] == 1);
  CHECK(node_named(pack_gemm_weights(gemms(2, 48), nullptr, 32), "mm1").op == "MatMul");  // N = P: W's own layout
  Graph hinted = gemms(2, 48);
  hinted.schedule.tile["mm1"] = {0, 24, 0};  // column tiles of 24 would split 16-wide panels
  hinted.schedule.tile["mm2"] = {0, 32, 0};
  PassStats st2;
  Graph out2 = pack_gemm_weights(hinted, &st2, 16);
  CHECK(node_named(out2, "mm1").op == "MatMul");
  CHECK(node_named(out2, "mm2").op == "Compute");
  CHECK(st2.counts["not packed: a tile hint splits the panels"] == 1);
  PassStats none;
  Graph same = pack_gemm_weights(gemms(2, 48), &none, 0);
  CHECK(none.changes == 0);
  CHECK(node_named(same, "mm1").op == "MatMul");
}

TEST_CASE("pack_gemm_weights: few rows and columns that are not whole panels: the last panel zero-padded") {
  for (int trans_b : {0, 1}) {
    Graph g;
    g.name = "classifier";
    g.add_input("x", {DType::F32, {2, 24}});
    g.add_weight("W", {DType::F32, trans_b ? SymShape{40, 24} : SymShape{24, 40}});
    g.add_weight("b", {DType::F32, {40}});
    Node n = make_node("Gemm", {"x", "W", "b"}, {"y"}, "fc");
    n.attrs["transB"] = trans_b;
    g.add_node(n);
    g.add_output("y");
    g.finalize();
    PassStats st;
    Graph out = pack_gemm_weights(g, &st, 16);
    CHECK(st.counts["weights packed"] == 1);
    const std::string panels = trans_b ? "W_t_panels" : "W_panels";
    CHECK(out.tensor(panels).type.str() == TensorType{DType::F32, {3, 24, 16}}.str());
    CHECK(max_output_difference(g, out) < 1e-5);
  }
}

TEST_CASE("pack_gemm_weights: a weight computed from weights alone is packed too") {
  Graph g;
  g.name = "derived";
  g.add_input("x", {DType::F32, {4, 32}});
  g.add_weight("W", {DType::F32, {32, 32}});
  g.add_node(make_node("Relu", {"W"}, {"Wr"}, "wrelu"));
  g.add_node(make_node("MatMul", {"x", "Wr"}, {"y"}, "mm"));
  g.add_output("y");
  g.finalize();
  PassStats st;
  Graph out = pack_gemm_weights(g, &st, 16);
  CHECK(st.counts["weights packed"] == 1);
  CHECK(node_named(out, "mm").inputs[1] == "Wr_panels");
  CHECK(max_output_difference(g, out) < 1e-5);
}

TEST_CASE("pack_gemm_weights: Gemm with transposes, alpha, beta and a broadcast C keeps its results") {
  struct Case {
    int trans_a, trans_b;
    double alpha, beta;
    SymShape c;  // empty: no C
  };
  for (const Case &k : {Case{0, 1, 1.0, 1.0, {32}}, Case{1, 0, 0.5, 2.0, {6, 1}}, Case{0, 0, 1.0, 1.0, {}},
                        Case{1, 1, 1.0, -1.0, {6, 32}}, Case{0, 1, 2.0, 1.0, {1, 32}}}) {
    Graph g;
    g.name = "gemm";
    g.add_input("x", {DType::F32, k.trans_a ? SymShape{16, 6} : SymShape{6, 16}});
    g.add_weight("W", {DType::F32, k.trans_b ? SymShape{32, 16} : SymShape{16, 32}});
    std::vector<std::string> in{"x", "W"};
    if (!k.c.empty()) {
      g.add_weight("C", {DType::F32, k.c});
      in.push_back("C");
    }
    g.add_node(make_node("Gemm", in, {"y"}, "fc",
                         {{"transA", k.trans_a}, {"transB", k.trans_b}, {"alpha", k.alpha}, {"beta", k.beta}}));
    g.add_output("y");
    g.finalize();
    PassStats st;
    Graph out = pack_gemm_weights(g, &st, 16);
    CAPTURE(k.trans_a);
    CAPTURE(k.trans_b);
    CAPTURE(k.alpha);
    CHECK(st.counts["matmuls reading packed weights"] == 1);
    CHECK(node_named(out, "fc").op == "Compute");
    CHECK(out.tensor("y").type.str() == g.tensor("y").type.str());
    CHECK(max_output_difference(g, out) < 1e-5);
  }
}
}
