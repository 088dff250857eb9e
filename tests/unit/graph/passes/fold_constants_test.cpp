// fold_constants: constant subgraphs become weights; values unchanged; limits respected.
#include "graph/passes/fold_constants.h"

#include "run_graph.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace atl;
using namespace atl::test;

TEST_SUITE("graph") {
TEST_CASE("fold_constants replaces a constant chain by one weight and keeps values") {
  Graph g;
  g.name = "fold";
  g.add_input("x", {DType::F32, {2, 4}});
  g.add_weight("w1", {DType::F32, {4}}, {}, random_values(4, 11));
  g.add_weight("w2", {DType::F32, {4}}, {}, random_values(4, 12));
  g.add_node(make_node("Add", {"w1", "w2"}, {"s"}, "add"));
  g.add_node(make_node("Exp", {"s"}, {"e"}, "exp"));
  g.add_node(make_node("Mul", {"x", "e"}, {"y"}, "mul"));
  g.add_output("y");
  g.finalize();

  PassStats st;
  Graph out = fold_constants(g, &st);
  CHECK(out.num_nodes() == 1);
  CHECK(ops_in_order(out) == std::vector<std::string>{"Mul"});
  CHECK(out.node(out.order()[0]).name == "mul");
  REQUIRE(out.has_tensor("e"));
  CHECK(out.tensor("e").role == TensorRole::Weight);
  REQUIRE(out.tensor("e").data.has_value());
  CHECK(out.tensor("e").type.str() == "f32[4]");
  CHECK(out.tensor("y").type.str() == "f32[2, 4]");
  CHECK(st.counts["nodes folded"] == 2);
  CHECK(st.changes == 2);
  CHECK(max_output_difference(g, out) == 0.0);
}

TEST_CASE("fold_constants leaves nodes that read run-time values and graph outputs") {
  Graph g;
  g.name = "keep";
  g.add_input("x", {DType::F32, {3}});
  g.add_weight("w", {DType::F32, {3}}, {}, random_values(3, 3));
  g.add_weight("r", {DType::F32, {3}});  // run-time weight: not a constant
  g.add_node(make_node("Neg", {"w"}, {"y"}, "neg"));      // a graph output
  g.add_node(make_node("Add", {"w", "r"}, {"z"}, "addr"));
  g.add_node(make_node("Add", {"x", "w"}, {"u"}, "addx"));
  g.add_output("y");
  g.add_output("z");
  g.add_output("u");
  g.finalize();
  PassStats st;
  Graph out = fold_constants(g, &st);
  CHECK(out.num_nodes() == 3);
  CHECK(st.changes == 0);
  CHECK(out.producer("y").has_value());
  CHECK(max_output_difference(g, out) == 0.0);
}

TEST_CASE("fold_constants skips results above the element limit") {
  Graph g;
  g.name = "big";
  g.add_input("x", {DType::F32, {8}});
  g.add_weight("w", {DType::F32, {8}}, {}, random_values(8, 5));
  g.add_node(make_node("Exp", {"w"}, {"e"}, "exp"));
  g.add_node(make_node("Add", {"x", "e"}, {"y"}, "add"));
  g.add_output("y");
  g.finalize();
  PassStats st;
  Graph out = fold_constants(g, &st, 4);
  CHECK(out.num_nodes() == 2);
  CHECK(st.counts["not folded: result too large"] == 1);
  CHECK(st.changes == 0);
  Graph folded = fold_constants(g, nullptr, 8);
  CHECK(folded.num_nodes() == 1);
}

TEST_CASE("fold_constants evaluates with the output dtype and keeps the node's registry semantics") {
  Graph g;
  g.name = "f16";
  g.add_input("x", {DType::F16, {2, 3}});
  g.add_weight("a", {DType::F16, {2, 3}}, {}, std::vector<double>{1, 2, 3, 4, 5, 6});
  g.add_node(make_node("Transpose", {"a"}, {"t"}, "tr", {{"perm", {1, 0}}}));
  g.add_node(make_node("Reshape", {"t"}, {"r"}, "rs", {{"shape", {2, 3}}}));
  g.add_node(make_node("Sqrt", {"r"}, {"s"}, "sq"));
  g.add_node(make_node("Mul", {"x", "s"}, {"y"}, "mul"));
  g.add_output("y");
  g.finalize();
  Graph out = fold_constants(g);
  CHECK(out.num_nodes() == 1);
  REQUIRE(out.tensor("s").data.has_value());
  CHECK(out.tensor("s").type.dtype == DType::F16);
  // Transposed [[1,4],[2,5],[3,6]] reshaped to [[1,4,2],[5,3,6]]; sqrt rounded to f16.
  CHECK((*out.tensor("s").data)[1] == doctest::Approx(2.0));
  CHECK((*out.tensor("s").data)[2] == round_to(DType::F16, std::sqrt(2.0)));
  CHECK(max_output_difference(g, out) == 0.0);
}
}
