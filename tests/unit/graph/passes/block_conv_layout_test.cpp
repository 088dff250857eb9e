// block_conv_layout: blocked convs equal the NCHW Conv on many shapes; chains stay blocked; the cost model refuses.
#include "graph/passes/block_conv_layout.h"

#include "graph/passes/eliminate_dead_nodes.h"
#include "graph/passes/fold_constants.h"
#include "graph/passes/simplify_graph.h"
#include "run_graph.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace atl;
using namespace atl::test;

namespace {

struct ConvShape {
  std::int64_t n, ci, h, w, co, kh, kw;
  std::int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  bool bias = false, const_weights = false;
};

std::string describe(const ConvShape &s) {
  return "n" + std::to_string(s.n) + " ci" + std::to_string(s.ci) + " " + std::to_string(s.h) + "x" +
         std::to_string(s.w) + " co" + std::to_string(s.co) + " k" + std::to_string(s.kh) + "x" + std::to_string(s.kw) +
         " s" + std::to_string(s.sh) + "," + std::to_string(s.sw) + " p" + std::to_string(s.ph) + "," +
         std::to_string(s.pw) + " d" + std::to_string(s.dh) + "," + std::to_string(s.dw) + (s.bias ? " bias" : "") +
         (s.const_weights ? " const" : "");
}

nlohmann::json conv_attrs(const ConvShape &s) {
  return {{"strides", {s.sh, s.sw}}, {"pads", {s.ph, s.pw, s.ph, s.pw}}, {"dilations", {s.dh, s.dw}}};
}

void add_weights(Graph &g, const std::string &name, std::vector<std::int64_t> shape, bool constant, std::uint64_t seed) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  TensorType t{DType::F32, to_sym_shape(shape)};
  if (constant) g.add_weight(name, t, {}, random_values(static_cast<std::size_t>(n), seed));
  else g.add_input(name, t);
}

Graph conv_graph(const ConvShape &s) {
  Graph g;
  g.name = "conv";
  g.add_input("x", {DType::F32, {s.n, s.ci, s.h, s.w}});
  add_weights(g, "W", {s.co, s.ci, s.kh, s.kw}, s.const_weights, 7);
  std::vector<std::string> in = {"x", "W"};
  if (s.bias) {
    add_weights(g, "b", {s.co}, s.const_weights, 8);
    in.push_back("b");
  }
  g.add_node(make_node("Conv", in, {"y"}, "conv", conv_attrs(s)));
  g.add_output("y");
  g.finalize();
  return g;
}

BlockConvOptions always() {
  BlockConvOptions o;
  o.min_macs = 0;
  o.min_reduction = 0;
  o.max_padding = 16;
  o.pointwise_nchw = false;
  return o;
}

std::int64_t count_op(const Graph &g, const std::string &op) {
  std::vector<std::string> ops = ops_in_order(g);
  return std::count(ops.begin(), ops.end(), op);
}

}  // namespace

TEST_SUITE("graph") {
TEST_CASE("block_conv_layout: blocked conv equals Conv on odd shapes, strides, pads, dilations, bias, batch 2") {
  const ConvShape shapes[] = {
      {1, 3, 9, 11, 16, 3, 3, 1, 1, 1, 1},
      {1, 5, 7, 6, 20, 3, 3, 1, 1, 1, 1, 1, 1, true},            // Co not a multiple of 16, bias
      {2, 4, 10, 9, 17, 3, 3, 2, 2, 1, 1},                       // batch 2, stride 2, odd Co
      {1, 6, 13, 11, 32, 7, 7, 2, 2, 3, 3, 1, 1, true, true},    // a stem: 7x7 stride 2, constant weights
      {1, 8, 9, 9, 16, 1, 1},                                    // 1x1
      {1, 3, 12, 10, 8, 3, 3, 1, 2, 2, 0, 2, 1},                 // dilation, asymmetric stride, Co = 8
      {2, 17, 5, 5, 33, 2, 3, 1, 1, 0, 1, 1, 2, true},           // odd everything
      {1, 4, 6, 6, 16, 3, 3, 3, 3, 0, 0},                        // stride 3, no padding
  };
  for (const ConvShape &s : shapes) {
    INFO(describe(s));
    Graph g = conv_graph(s);
    PassStats st;
    Graph out = eliminate_dead_nodes(block_conv_layout(g, &st, always()));
    CHECK(st.counts["convs blocked"] == 1);
    CHECK(count_op(out, "Conv") == 0);
    // weight reorder, blocked conv, conversion to NCHW, and the zero-padded input where reads leave it
    bool reads_outside = s.ph > 0 || s.pw > 0 || (out.tensor("y").type.shape[2].value - 1) * s.sh + (s.kh - 1) * s.dh >= s.h ||
                         (out.tensor("y").type.shape[3].value - 1) * s.sw + (s.kw - 1) * s.dw >= s.w;
    CHECK(st.counts["inputs padded"] == (reads_outside ? 1 : 0));
    CHECK(count_op(out, "Compute") == (reads_outside ? 4 : 3));
    CHECK(out.tensor("y").type.str() == g.tensor("y").type.str());
    std::int64_t cb = (s.co + 15) / 16;
    CHECK(out.tensor("y_blk").type.str() ==
          g.tensor("y").type.str().substr(0, 4) + std::to_string(s.n) + ", " + std::to_string(cb) + ", " +
              std::to_string(out.tensor("y").type.shape[2].value) + ", " +
              std::to_string(out.tensor("y").type.shape[3].value) + ", 16]");
    CHECK(max_output_difference(g, out) < 1e-5);
  }
}

TEST_CASE("block_conv_layout: block_nchw_inputs reads a blocked copy of an NCHW input of whole blocks, shared") {
  // Two windowed convs (one padded, one strided and unpadded) and a 1x1 of
  // the same 32-channel input; a 24-channel input (not whole blocks) stays NCHW.
  for (std::int64_t ci : {32, 24}) {
    INFO("ci " << ci);
    Graph g;
    g.name = "shared";
    g.add_input("x", {DType::F32, {2, ci, 9, 10}});
    add_weights(g, "W1", {16, ci, 3, 3}, true, 1);
    add_weights(g, "W2", {20, ci, 2, 2}, true, 2);
    add_weights(g, "W3", {16, ci, 1, 1}, true, 3);
    g.add_node(make_node("Conv", {"x", "W1"}, {"y1"}, "c1", {{"pads", {1, 1, 1, 1}}}));
    g.add_node(make_node("Conv", {"x", "W2"}, {"y2"}, "c2", {{"strides", {2, 2}}}));
    g.add_node(make_node("Conv", {"x", "W3"}, {"y3"}, "c3"));
    g.add_output("y1");
    g.add_output("y2");
    g.add_output("y3");
    g.finalize();
    BlockConvOptions o = always();
    o.block_nchw_inputs = true;
    PassStats st;
    Graph out = eliminate_dead_nodes(block_conv_layout(g, &st, o));
    CHECK(st.counts["convs blocked"] == 3);
    CHECK(st.counts["NCHW inputs converted to blocked"] == (ci == 32 ? 1 : 0));
    // both windowed convs read the one copy (the 1x1 reads it too when it comes after the first)
    if (ci == 32) CHECK(st.counts["convs reading a blocked input"] >= 2);
    else CHECK(st.counts["convs reading a blocked input"] == 0);
    if (ci == 32) CHECK(out.tensor("x_blk").type.str() == TensorType{DType::F32, {2, 2, 9, 10, 16}}.str());
    CHECK(max_output_difference(g, out) < 1e-4);
    PassStats off;
    block_conv_layout(g, &off, always());
    CHECK(off.counts["NCHW inputs converted to blocked"] == 0);
  }
}

TEST_CASE("block_conv_layout: the block size comes from the options") {
  ConvShape s{1, 3, 8, 8, 12, 3, 3, 1, 1, 1, 1};
  Graph g = conv_graph(s);
  BlockConvOptions o = always();
  o.block = 8;
  Graph out = block_conv_layout(g, nullptr, o);
  CHECK(out.tensor("y_blk").type.str() == "f32[1, 2, 8, 8, 8]");
  CHECK(max_output_difference(g, out) < 1e-5);
}

TEST_CASE("block_conv_layout: constant weights are reordered by fold_constants") {
  ConvShape s{1, 4, 8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1, true, true};
  Graph g = conv_graph(s);
  PassStats st;
  Graph out = fold_constants(block_conv_layout(g, &st, always()));
  CHECK(count_op(out, "Compute") == 3);  // padded input, blocked conv, conversion to NCHW
  CHECK(out.tensor("W_blk").data.has_value());
  CHECK(st.counts.count("conversion bytes") == 1);
  // Run-time bytes: the output conversion (2 x 4 x 16 x 8 x 8) and the padded
  // copy of x (4 x 4 x (8 x 8 + 10 x 10)); none for the constant weights.
  CHECK(st.counts["conversion bytes"] == 2 * 4 * 16 * 8 * 8 + 4 * 4 * (64 + 100));
  CHECK(max_output_difference(g, out) < 1e-5);
}

TEST_CASE("block_conv_layout: conv -> Relu -> conv -> Add(residual) stays blocked, one conversion at the end") {
  Graph g;
  g.name = "chain";
  g.add_input("x", {DType::F32, {1, 5, 9, 9}});
  g.add_input("W1", {DType::F32, {20, 5, 3, 3}});
  g.add_input("W2", {DType::F32, {20, 20, 3, 3}});
  g.add_input("B2", {DType::F32, {20}});
  g.add_node(make_node("Conv", {"x", "W1"}, {"a"}, "c1", {{"pads", {1, 1, 1, 1}}}));
  g.add_node(make_node("Relu", {"a"}, {"r"}, "relu"));
  g.add_node(make_node("Conv", {"r", "W2", "B2"}, {"b"}, "c2", {{"pads", {1, 1, 1, 1}}}));
  g.add_node(make_node("Add", {"b", "r"}, {"s"}, "add"));
  g.add_node(make_node("Sigmoid", {"s"}, {"y"}, "sig"));
  g.add_output("y");
  g.finalize();
  PassStats st;
  Graph out = eliminate_dead_nodes(block_conv_layout(g, &st, always()));
  CHECK(st.counts["convs blocked"] == 2);
  CHECK(st.counts["convs reading a blocked input"] == 1);
  CHECK(st.counts["elementwise ops kept blocked"] == 3);
  CHECK(st.counts["conversions to NCHW"] == 1);
  CHECK(count_op(out, "Compute") == 7);  // two weight reorders, two padded inputs, two blocked convs, one conversion
  CHECK(out.tensor("r_pad").type.str() == "f32[1, 2, 11, 11, 16]");  // conv2 pads the blocked Relu
  CHECK(count_op(out, "Relu") == 1);
  CHECK(count_op(out, "Add") == 1);
  CHECK(count_op(out, "Sigmoid") == 1);
  CHECK(out.tensor("r_blk").type.str() == "f32[1, 2, 9, 9, 16]");
  CHECK(max_output_difference(g, out) < 1e-5);
}

TEST_CASE("block_conv_layout: run-time BatchNormalization between convs stays blocked (padded lanes too)") {
  for (std::int64_t co : {32, 20}) {
    CAPTURE(co);
    Graph g;
    g.name = "bn_chain";
    g.add_input("x", {DType::F32, {2, 6, 7, 9}});
    g.add_input("W1", {DType::F32, {co, 6, 1, 1}});
    g.add_input("W2", {DType::F32, {16, co, 3, 3}});
    for (const char *p : {"sc", "bi", "mu"}) g.add_input(p, {DType::F32, {co}});
    std::vector<double> var = random_values(static_cast<std::size_t>(co), 11);
    for (double &v : var) v = 1.25 + v;  // positive variances
    g.add_weight("va", {DType::F32, {co}}, {}, var);
    g.add_node(make_node("Conv", {"x", "W1"}, {"a"}, "c1"));
    g.add_node(make_node("BatchNormalization", {"a", "sc", "bi", "mu", "va"}, {"n"}, "bn", {{"epsilon", 1e-3}}));
    g.add_node(make_node("Relu", {"n"}, {"r"}, "relu"));
    g.add_node(make_node("Conv", {"r", "W2"}, {"y"}, "c2", {{"pads", {1, 1, 1, 1}}}));
    g.add_output("y");
    g.finalize();
    PassStats st;
    Graph out = eliminate_dead_nodes(block_conv_layout(g, &st, always()));
    CHECK(st.counts["batch normalizations kept blocked"] == 1);
    CHECK(st.counts["convs reading a blocked input"] == 1);
    CHECK(st.counts["conversions to NCHW"] == 1);  // only the graph output
    CHECK(count_op(out, "BatchNormalization") == 0);
    CHECK(max_output_difference(g, out) < 1e-4);
  }
}

TEST_CASE("block_conv_layout: a 1x1 conv of an NCHW input that widens or pads the channels stays NCHW") {
  // (Ci, Co, blocked?): 256 -> 64 narrows with full blocks; 24 -> 144 widens; 144 -> 24 pads its last block.
  for (auto [ci, co, blocked] : {std::tuple{256, 64, true}, std::tuple{24, 144, false}, std::tuple{144, 24, false}}) {
    CAPTURE(ci);
    CAPTURE(co);
    Graph g = conv_graph({1, ci, 20, 20, co, 1, 1});
    PassStats st;
    BlockConvOptions o;
    o.min_macs = 0;
    Graph out = eliminate_dead_nodes(block_conv_layout(g, &st, o));
    CHECK(st.counts["convs blocked"] == (blocked ? 1 : 0));
    CHECK(count_op(out, "Conv") == (blocked ? 0 : 1));
    o.pointwise_nchw = false;
    PassStats forced;
    block_conv_layout(g, &forced, o);
    CHECK(forced.counts["convs blocked"] == 1);
  }
}

TEST_CASE("block_conv_layout: an NCHW tensor also read elsewhere keeps its conversion") {
  Graph g;
  g.name = "two_readers";
  g.add_input("x", {DType::F32, {1, 4, 6, 6}});
  g.add_input("W1", {DType::F32, {16, 4, 3, 3}});
  g.add_input("W2", {DType::F32, {16, 16, 1, 1}});
  g.add_node(make_node("Conv", {"x", "W1"}, {"a"}, "c1", {{"pads", {1, 1, 1, 1}}}));
  g.add_node(make_node("Conv", {"a", "W2"}, {"b"}, "c2"));
  g.add_node(make_node("MaxPool", {"a"}, {"p"}, "pool", {{"kernel_shape", {2, 2}}}));
  g.add_output("b");
  g.add_output("p");
  g.finalize();
  PassStats st;
  Graph out = eliminate_dead_nodes(block_conv_layout(g, &st, always()));
  CHECK(st.counts["conversions to NCHW"] == 2);  // a (for MaxPool) and b (a graph output)
  CHECK(count_op(out, "MaxPool") == 1);
  CHECK(max_output_difference(g, out) < 1e-5);
}

TEST_CASE("block_conv_layout: the cost model and the limits refuse, with notes") {
  PassStats st;
  Graph small = conv_graph({1, 3, 8, 8, 16, 3, 3, 1, 1, 1, 1});
  CHECK(block_conv_layout(small, &st).num_nodes() == 1);  // default limits: too little work
  CHECK(st.counts["not blocked: too little work"] == 1);
  BlockConvOptions o = always();
  o.min_reduction = 16;
  CHECK(block_conv_layout(conv_graph({1, 1, 8, 8, 16, 3, 3}), &st, o).num_nodes() == 1);
  CHECK(st.counts["not blocked: reduction too short"] == 1);
  o = always();
  o.max_padding = 1.5;
  CHECK(block_conv_layout(conv_graph({1, 4, 8, 8, 4, 3, 3}), &st, o).num_nodes() == 1);
  CHECK(st.counts["not blocked: too many padded channels"] == 1);
  Graph grouped;
  grouped.name = "grouped";
  grouped.add_input("x", {DType::F32, {1, 32, 8, 8}});
  grouped.add_input("W", {DType::F32, {32, 1, 3, 3}});
  grouped.add_node(make_node("Conv", {"x", "W"}, {"y"}, "dw", {{"group", 32}}));
  grouped.add_output("y");
  grouped.finalize();
  CHECK(block_conv_layout(grouped, &st, always()).num_nodes() == 1);
  CHECK(st.counts["not blocked: grouped"] == 1);
  Graph bad;
  bad.name = "names";
  bad.add_input("in.x", {DType::F32, {1, 4, 8, 8}});
  bad.add_input("W", {DType::F32, {16, 4, 3, 3}});
  bad.add_node(make_node("Conv", {"in.x", "W"}, {"y"}, "conv"));
  bad.add_output("y");
  bad.finalize();
  CHECK(block_conv_layout(bad, &st, always()).num_nodes() == 1);
  CHECK(st.counts["not blocked: a tensor name is not a Compute identifier"] == 1);
  CHECK(st.changes == 0);
}

TEST_CASE("block_conv_layout: simplify_graph runs it only when asked, and reaches a fixed point") {
  Graph g = conv_graph({1, 16, 20, 20, 32, 3, 3, 1, 1, 1, 1, 1, 1, true, true});
  SimplifySummary sum;
  Graph plain = simplify_graph(g, {}, &sum);
  CHECK(count_op(plain, "Conv") == 1);
  SimplifyOptions so;
  so.block_conv_layout = true;
  so.block_conv = always();
  Graph out = simplify_graph(g, so, &sum);
  CHECK(sum.converged);
  CHECK(count_op(out, "Conv") == 0);
  CHECK(count_op(out, "Compute") == 3);  // the weight reorder was folded; padded input, conv, conversion
  bool found = false;
  for (const auto &[name, stats] : sum.passes)
    if (name == "block_conv_layout") found = stats.counts.at("convs blocked") == 1;
  CHECK(found);
  CHECK(max_output_difference(g, out) < 1e-5);
}
}
