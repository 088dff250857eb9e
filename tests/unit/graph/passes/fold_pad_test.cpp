// fold_pad: a zero Pad folded into the Conv that reads it; refused for other pads.
#include "graph/passes/fold_pad.h"

#include "run_graph.h"

#include <doctest/doctest.h>

using namespace atl;
using namespace atl::test;

namespace {

Graph pad_conv(nlohmann::json pad_attrs, bool extra_reader = false) {
  Graph g;
  g.name = "pad_conv";
  g.add_input("x", {DType::F32, {1, 2, 5, 6}});
  g.add_weight("W", {DType::F32, {3, 2, 3, 3}});
  g.add_node(make_node("Pad", {"x"}, {"p"}, "pad", pad_attrs));
  g.add_node(make_node("Conv", {"p", "W"}, {"y"}, "conv", {{"pads", {0, 1, 0, 1}}, {"strides", {1, 2}}}));
  if (extra_reader) {
    g.add_node(make_node("Relu", {"p"}, {"r"}, "relu"));
    g.add_output("r");
  }
  g.add_output("y");
  g.finalize();
  return g;
}

}  // namespace

TEST_SUITE("graph") {
TEST_CASE("fold_pad folds a zero spatial Pad into the Conv's pads") {
  Graph g = pad_conv({{"pads", {0, 0, 1, 2, 0, 0, 2, 1}}});
  PassStats st;
  Graph out = fold_pad(g, &st);
  CHECK(st.counts["pads folded into Conv"] == 1);
  CHECK(ops_in_order(out) == std::vector<std::string>{"Conv"});
  const Node &conv = out.node(out.order()[0]);
  CHECK(conv.inputs[0] == "x");
  CHECK(conv.attrs["pads"] == nlohmann::json({1, 3, 2, 2}));
  CHECK(out.tensor("y").type.str() == g.tensor("y").type.str());
  CHECK(max_output_difference(g, out) < 1e-6);
}

TEST_CASE("fold_pad folds a Pad given per axis") {
  Graph g = pad_conv({{"pads", {1, 1, 1, 1}}, {"axes", {2, 3}}});
  Graph out = fold_pad(g);
  CHECK(ops_in_order(out) == std::vector<std::string>{"Conv"});
  CHECK(max_output_difference(g, out) < 1e-6);
}

TEST_CASE("fold_pad keeps a Pad that is not zero, pads channels, or has another reader") {
  PassStats st;
  CHECK(fold_pad(pad_conv({{"pads", {0, 0, 1, 1, 0, 0, 1, 1}}, {"constant_value", 1.5}}), &st).num_nodes() == 2);
  CHECK(st.counts["not folded: not a zero constant pad"] == 1);
  CHECK(fold_pad(pad_conv({{"pads", {0, 0, 1, 1, 0, 0, 1, 1}}, {"mode", "edge"}})).num_nodes() == 2);
  CHECK(fold_pad(pad_conv({{"pads", {1, 0, 1, 1, 0, 0, 1, 1}}}), &st).num_nodes() == 2);
  CHECK(st.counts["not folded: pads batch or channel axes, or crops"] == 1);
  CHECK(fold_pad(pad_conv({{"pads", {0, 0, 1, 1, 0, 0, 1, 1}}}, true), &st).num_nodes() == 3);
  CHECK(st.counts["not folded: padded tensor has other uses"] == 1);
  CHECK(st.changes == 0);
}
}
