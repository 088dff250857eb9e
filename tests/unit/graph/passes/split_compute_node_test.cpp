// split_compute_node: a Compute node of several contractions becomes one node per contraction; what it must keep whole stays.
#include "graph/passes/split_compute_node.h"

#include "run_graph.h"

#include <doctest/doctest.h>

using namespace atl;
using namespace atl::test;

namespace {

Node compute(std::vector<std::string> in, std::string out, std::string name, std::string expr) {
  return make_node("Compute", std::move(in), {std::move(out)}, std::move(name), {{"expr", std::move(expr)}});
}

/// MobileNet's expand -> depthwise -> project as one Compute node (odd sizes).
Graph inverted_residual_node() {
  Graph g;
  g.name = "ir";
  g.add_input("x", {DType::F32, {1, 3, 7, 9}});
  g.add_weight("We", {DType::F32, {10, 3}});
  g.add_weight("Wd", {DType::F32, {10, 3, 3}});
  g.add_weight("Wp", {DType::F32, {4, 10}});
  g.add_node(compute({"x", "We", "Wd", "Wp"}, "y", "block",
                     "e(c, h, w) +=! x(0, k, h, w) * We(c, k)\n"
                     "ea(c, h, w) = min(max(e(c, h, w), 0), 6)\n"
                     "d(c, h, w) +=! guard(ea(c, h + kh - 1, w + kw - 1), 0) * Wd(c, kh, kw) "
                     "where c in 0:10, h in 0:7, w in 0:9, kh in 0:3, kw in 0:3\n"
                     "y(0, o, h, w) +=! d(c, h, w) * Wp(o, c)"));
  g.add_output("y");
  g.finalize();
  return g;
}

}  // namespace

TEST_SUITE("graph") {
TEST_CASE("split_compute_node: three contractions become three nodes, epilogues with their contraction") {
  Graph g = inverted_residual_node();
  PassStats st;
  Graph out = split_compute_node(g, &st);
  REQUIRE(out.num_nodes() == 3);
  CHECK(st.counts["compute nodes split"] == 1);
  CHECK(st.counts["compute nodes made"] == 3);
  std::vector<const Node *> nodes;
  for (NodeId v : out.order()) nodes.push_back(&out.node(v));
  CHECK(nodes[0]->name == "block_0");
  CHECK(nodes[0]->inputs == std::vector<std::string>{"x", "We"});
  CHECK(nodes[0]->outputs == std::vector<std::string>{"ea"});
  CHECK(nodes[0]->attrs["expr"] == "e(c, h, w) +=! x(0, k, h, w) * We(c, k)\nea(c, h, w) = min(max(e(c, h, w), 0), 6)");
  CHECK(nodes[1]->inputs == std::vector<std::string>{"Wd", "ea"});
  CHECK(nodes[1]->outputs == std::vector<std::string>{"d"});
  CHECK(nodes[2]->inputs == std::vector<std::string>{"Wp", "d"});
  CHECK(nodes[2]->outputs == std::vector<std::string>{"y"});
  // The tensors between them have the temporaries' shapes.
  CHECK(out.tensor("ea").type.str() == "f32[10, 7, 9]");
  CHECK(out.tensor("d").type.str() == "f32[10, 7, 9]");
  CHECK(out.tensor("y").type.str() == "f32[1, 4, 7, 9]");
  CHECK(max_output_difference(g, out) < 1e-5);
  // Nothing left to split.
  PassStats again;
  split_compute_node(out, &again);
  CHECK(again.changes == 0);
}

TEST_CASE("split_compute_node keeps a node whole when a cut would separate writes of one tensor or a read from its write") {
  auto one = [](const std::string &expr) {
    Graph g;
    g.name = "keep";
    g.add_input("A", {DType::F32, {5, 6}});
    g.add_input("B", {DType::F32, {6, 5}});
    g.add_node(compute({"A", "B"}, "y", "n", expr));
    g.add_output("y");
    g.finalize();
    PassStats st;
    Graph out = split_compute_node(g, &st);
    CHECK(st.changes == 0);
    return out.num_nodes();
  };
  // One contraction and its epilogue.
  CHECK(one("t(i, j) +=! A(i, k) * B(k, j)\ny(i, j) = max(t(i, j), 0)") == 1);
  // Two contractions, but t is written before and after the second.
  CHECK(one("t(i, j) +=! A(i, k) * B(k, j)\ny(i, j) +=! t(i, k) * t(k, j)\nt(i, j) = y(i, j) * 2\n"
            "y(i, j) = t(i, j)") == 1);
  // Reductions that are not contractions (a LayerNorm written by hand).
  CHECK(one("m(i) +=! A(i, k)\nv(i) +=! (A(i, k) - m(i) / 6) * (A(i, k) - m(i) / 6)\n"
            "y(j, i) = B(j, i) + v(i)") == 1);
}

TEST_CASE("split_compute_node: attention's QK^T, Softmax and PV as one node become three, the Softmax's reductions together") {
  Graph g;
  g.name = "att";
  for (const char *t : {"q", "k", "v"}) g.add_input(t, {DType::F32, {2, 5, 3}});
  g.add_node(compute({"q", "k", "v"}, "o", "att",
                     "s(h, i, j) +=! q(h, i, d) * k(h, j, d)\ns(h, i, j) = s(h, i, j) * 0.5\nm(h, i) max=! s(h, i, j)\n"
                     "p(h, i, j) = exp(s(h, i, j) - m(h, i))\nz(h, i) +=! p(h, i, j)\n"
                     "p(h, i, j) = p(h, i, j) / z(h, i)\no(h, i, d) +=! p(h, i, j) * v(h, j, d)"));
  g.add_output("o");
  g.finalize();
  PassStats st;
  Graph out = split_compute_node(g, &st);
  REQUIRE(out.num_nodes() == 3);
  std::vector<std::string> exprs;
  for (NodeId v : out.order()) exprs.push_back(out.node(v).attrs["expr"].get<std::string>());
  // The scale stays with its contraction; the max, exp, sum and division run together.
  CHECK(exprs[0] == "s(h, i, j) +=! q(h, i, d) * k(h, j, d)\ns(h, i, j) = s(h, i, j) * 0.5");
  CHECK(exprs[1] ==
        "m(h, i) max=! s(h, i, j)\np(h, i, j) = exp(s(h, i, j) - m(h, i))\nz(h, i) +=! p(h, i, j)\n"
        "p(h, i, j) = p(h, i, j) / z(h, i)");
  CHECK(exprs[2] == "o(h, i, d) +=! p(h, i, j) * v(h, j, d)");
  CHECK(out.tensor("s").type.str() == "f32[2, 5, 5]");
  CHECK(out.tensor("p").type.str() == "f32[2, 5, 5]");
  CHECK(max_output_difference(g, out) < 1e-5);
}

TEST_CASE("split_compute_node: a temporary that a later contraction and a later epilogue read leaves once") {
  Graph g;
  g.name = "two";
  g.add_input("A", {DType::F32, {5, 6}});
  g.add_input("B", {DType::F32, {6, 7}});
  g.add_input("C", {DType::F32, {7, 3}});
  g.add_node(compute({"A", "B", "C"}, "y", "mm2",
                     "t(i, j) +=! A(i, k) * B(k, j)\nu(i, j) +=! t(i, k) * C(k, j)\ny(i, j) = u(i, j) + t(i, j)"));
  g.add_output("y");
  g.finalize();
  PassStats st;
  Graph out = split_compute_node(g, &st);
  REQUIRE(out.num_nodes() == 2);
  CHECK(out.tensor("t").type.str() == "f32[5, 7]");
  CHECK(max_output_difference(g, out) < 1e-5);
}
}
