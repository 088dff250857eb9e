// transpose_contraction_operand: a contraction whose output's last index is not its operand's last subscript reads a transposed copy; the cases it must leave alone stay.
#include "graph/passes/transpose_contraction_operand.h"

#include "run_graph.h"

#include <doctest/doctest.h>

using namespace atl;
using namespace atl::test;

namespace {

Node compute(std::vector<std::string> in, std::string out, std::string name, std::string expr) {
  return make_node("Compute", std::move(in), {std::move(out)}, std::move(name), {{"expr", std::move(expr)}});
}

/// One Compute node reading A and B (inputs, or B a weight) into y.
Graph one_node(Shape a, Shape b, const std::string &expr, bool b_weight = false) {
  Graph g;
  g.name = "contraction";
  g.add_input("A", {DType::F32, to_sym_shape(a)});
  if (b_weight)
    g.add_weight("B", {DType::F32, to_sym_shape(b)});
  else
    g.add_input("B", {DType::F32, to_sym_shape(b)});
  g.add_node(compute({"A", "B"}, "y", "n", expr));
  g.add_output("y");
  g.finalize();
  return g;
}

}  // namespace

TEST_SUITE("graph") {
TEST_CASE("transpose_contraction_operand: QK^T reads a copy of K with the output's index last") {
  // Odd sizes: 3 heads, 9 queries, 11 keys, 5 features.
  Graph g = one_node({3, 9, 5}, {3, 11, 5}, "s(h, i, j) +=! A(h, i, d) * B(h, j, d)\ny(h, i, j) = s(h, i, j) * 0.5");
  PassStats st;
  Graph out = transpose_contraction_operand(g, &st);
  CHECK(st.counts["contraction operands transposed"] == 1);
  REQUIRE(out.num_nodes() == 2);
  std::vector<const Node *> nodes;
  for (NodeId v : out.order()) nodes.push_back(&out.node(v));
  CHECK(nodes[0]->name == "n_B_t");
  CHECK(nodes[0]->inputs == std::vector<std::string>{"B"});
  CHECK(nodes[0]->attrs["expr"] == "B_t(i0_, i2_, i1_) = B(i0_, i1_, i2_)");
  CHECK(out.tensor("B_t").type.str() == "f32[3, 5, 11]");
  CHECK(nodes[1]->name == "n");
  CHECK(nodes[1]->inputs == std::vector<std::string>{"A", "B_t"});
  CHECK(nodes[1]->attrs["expr"] == "s(h, i, j) +=! A(h, i, d) * B_t(h, d, j)\ny(h, i, j) = s(h, i, j) * 0.5");
  CHECK(max_output_difference(g, out) < 1e-5);
  // The output's index is now the copy's last subscript: nothing more to do.
  PassStats again;
  transpose_contraction_operand(out, &again);
  CHECK(again.changes == 0);
}

TEST_CASE("transpose_contraction_operand: the operand may come first, and a weight is copied even without reuse") {
  // y(j) +=! x(d) * W(j, d): a matrix-vector product; W is a weight, so its
  // copy runs once (weight phase) and the product streams along j.
  Graph g = one_node({16}, {24, 16}, "y(j) +=! A(d) * B(j, d)", true);
  PassStats st;
  Graph out = transpose_contraction_operand(g, &st);
  CHECK(st.changes == 1);
  CHECK(max_output_difference(g, out) < 1e-5);
  Graph first = one_node({4, 5}, {9, 5}, "y(i, j) +=! B(j, d) * A(i, d)");
  Graph out2 = transpose_contraction_operand(first, &st);
  REQUIRE(out2.num_nodes() == 2);
  CHECK(out2.node(out2.order()[1]).attrs["expr"] == "y(i, j) +=! B_t(d, j) * A(i, d)");
  CHECK(max_output_difference(first, out2) < 1e-5);
}

TEST_CASE("transpose_contraction_operand leaves alone what a copy would not help or could break") {
  auto unchanged = [](Graph g) {
    PassStats st;
    transpose_contraction_operand(g, &st);
    return st.changes == 0;
  };
  // Already the output's index last (a MatMul), or in both operands.
  CHECK(unchanged(one_node({9, 5}, {5, 11}, "y(i, j) +=! A(i, d) * B(d, j)")));
  CHECK(unchanged(one_node({9, 11}, {9, 11}, "y(i, j) +=! A(i, j) * B(i, j)")));
  // Fewer than 8 along the output's index; too little reuse of an input.
  CHECK(unchanged(one_node({9, 5}, {7, 5}, "y(i, j) +=! A(i, d) * B(j, d)")));
  CHECK(unchanged(one_node({16}, {24, 16}, "y(j) +=! A(d) * B(j, d)")));
  CHECK(unchanged(one_node({3, 16}, {24, 16}, "y(i, j) +=! A(i, d) * B(j, d)")));
  // A guard, an affine subscript, a second read, a repeated index.
  CHECK(unchanged(one_node({9, 5}, {11, 5}, "y(i, j) +=! A(i, d) * guard(B(j, d), 0)")));
  CHECK(unchanged(one_node({9, 5}, {12, 5}, "y(i, j) +=! A(i, d) * B(j + 1, d) where j in 0:11")));
  CHECK(unchanged(one_node({9, 5}, {11, 5}, "y(i, j) +=! A(i, d) * B(j, d)\ny(i, j) = y(i, j) + B(j, 0)")));
  CHECK(unchanged(one_node({9, 9}, {9, 9, 9}, "y(i, j) +=! A(i, d) * B(j, d, d)")));
  // Not a contraction: no `+=!`, or a reduction that is not a product.
  CHECK(unchanged(one_node({9, 5}, {11, 5}, "y(i, j) += A(i, d) * B(j, d)")));
  CHECK(unchanged(one_node({9, 5}, {11, 5}, "y(i, j) max=! A(i, d) * B(j, d)")));
}

TEST_CASE("transpose_contraction_operand: a Gemm's run-time B under transB goes through a Transpose") {
  auto gemm = [](Shape a, Shape b, bool b_weight, bool with_c) {
    Graph g;
    g.name = "gemm";
    g.add_input("A", {DType::F32, to_sym_shape(a)});
    if (b_weight)
      g.add_weight("B", {DType::F32, to_sym_shape(b)});
    else
      g.add_input("B", {DType::F32, to_sym_shape(b)});
    std::vector<std::string> in = {"A", "B"};
    if (with_c) {
      g.add_input("C", {DType::F32, {b[0]}});
      in.push_back("C");
    }
    g.add_node(make_node("Gemm", in, {"y"}, "mm", {{"transB", 1}, {"alpha", 0.5}, {"beta", 2.0}}));
    g.add_output("y");
    g.finalize();
    return g;
  };
  Graph g = gemm({6, 13}, {17, 13}, false, true);
  PassStats st;
  Graph out = transpose_contraction_operand(g, &st);
  CHECK(st.counts["contraction operands transposed"] == 1);
  CHECK(ops_in_order(out) == std::vector<std::string>{"Transpose", "Gemm"});
  const Node &mm = out.node(out.order()[1]);
  CHECK(mm.inputs == std::vector<std::string>{"A", "B_t", "C"});
  CHECK(mm.attrs["transB"] == 0);
  CHECK(out.tensor("B_t").type.str() == "f32[13, 17]");
  CHECK(max_output_difference(g, out) < 1e-5);
  PassStats again;
  transpose_contraction_operand(out, &again);
  CHECK(again.changes == 0);
  // A weight is laid out by pack_gemm_weights; too few rows of A (M = 3) or
  // of B (N = 7) do not pay for the copy.
  for (const Graph &keep : {gemm({6, 13}, {17, 13}, true, false), gemm({3, 13}, {17, 13}, false, false),
                            gemm({6, 13}, {7, 13}, false, false)}) {
    PassStats none;
    transpose_contraction_operand(keep, &none);
    CHECK(none.changes == 0);
  }
}
}
