// winograd_conv: F(2x2, 3x3) Computes equal the Conv on odd shapes, pads, bias and batch; block_conv_layout takes them only where they apply.
#include "graph/passes/winograd_conv.h"

#include "graph/passes/block_conv_layout.h"
#include "graph/passes/eliminate_dead_nodes.h"
#include "run_graph.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>

using namespace atl;
using namespace atl::test;

namespace {

/// x [N, 8, H, W] -> 1x1 Conv to Ci channels (blocked by the pass) -> Relu -> 3x3 Conv to Co (the candidate).
struct Chain {
  std::int64_t n = 1, ci = 16, h = 8, w = 8, co = 16;
  std::int64_t pads[4] = {1, 1, 1, 1};
  std::int64_t stride = 1, dilation = 1, k = 3;
  bool bias = false;
};

std::string describe(const Chain &c) {
  std::ostringstream os;
  os << "n" << c.n << " ci" << c.ci << " " << c.h << "x" << c.w << " co" << c.co << " k" << c.k << " pads " << c.pads[0]
     << "," << c.pads[1] << "," << c.pads[2] << "," << c.pads[3] << " s" << c.stride << " d" << c.dilation
     << (c.bias ? " bias" : "");
  return os.str();
}

Graph chain_graph(const Chain &c) {
  Graph g;
  g.name = "chain";
  g.add_input("x", {DType::F32, {c.n, 8, c.h, c.w}});
  g.add_input("W1", {DType::F32, {c.ci, 8, 1, 1}});
  g.add_input("W2", {DType::F32, {c.co, c.ci, c.k, c.k}});
  std::vector<std::string> in = {"r", "W2"};
  if (c.bias) {
    g.add_input("B2", {DType::F32, {c.co}});
    in.push_back("B2");
  }
  g.add_node(make_node("Conv", {"x", "W1"}, {"a"}, "c1"));
  g.add_node(make_node("Relu", {"a"}, {"r"}, "relu"));
  g.add_node(make_node("Conv", in, {"y"}, "c2",
                       {{"pads", {c.pads[0], c.pads[1], c.pads[2], c.pads[3]}},
                        {"strides", {c.stride, c.stride}},
                        {"dilations", {c.dilation, c.dilation}}}));
  g.add_output("y");
  g.finalize();
  return g;
}

BlockConvOptions with_winograd(int panel = 16) {
  BlockConvOptions o;
  o.min_macs = 0;
  o.min_reduction = 0;
  o.pointwise_nchw = false;
  o.winograd = true;
  o.winograd_panel = panel;
  return o;
}

std::int64_t count_lines(const std::string &s) { return 1 + std::count(s.begin(), s.end(), '\n'); }

}  // namespace

TEST_SUITE("graph") {
TEST_CASE("winograd_conv: F(2x2, 3x3) equals Conv on odd outputs, asymmetric pads, bias, batch 2, with and without panels") {
  Chain shapes[] = {
      {},                                              // 8x8, pads 1: 4 x 4 tiles
      {1, 16, 9, 11, 16, {1, 1, 1, 1}},                // odd output: partial tiles in both directions
      {2, 32, 7, 6, 48, {1, 1, 1, 1}, 1, 1, 3, true},  // batch 2, two input blocks, three output blocks, bias
      {1, 16, 6, 6, 32, {0, 0, 0, 0}},                 // no padding, 4x4 output: x read as it is
      {1, 16, 7, 9, 16, {0, 0, 0, 0}, 1, 1, 3, true},  // no padding, 5x7 output: padded past the end only
      {1, 16, 8, 7, 16, {0, 1, 2, 1}},                 // asymmetric pads
      {1, 16, 3, 3, 16, {1, 1, 1, 1}},                 // one pixel per tile row short: 3x3 output
  };
  for (int panel : {16, 0, 32}) {
    for (const Chain &c : shapes) {
      INFO(describe(c) << " panel " << panel);
      Graph g = chain_graph(c);
      PassStats st;
      Graph out = eliminate_dead_nodes(block_conv_layout(g, &st, with_winograd(panel)));
      CHECK(st.counts["convs as Winograd F(2x2, 3x3)"] == 1);
      CHECK(st.counts["convs blocked"] == 2);
      CHECK(out.tensor("y").type.str() == g.tensor("y").type.str());
      // Panels only where P divides Co (32 does not divide 16 or 48).
      const bool panels = panel > 0 && c.co % panel == 0;
      CHECK(out.tensor("W2_wino").type.rank() == (panels ? 4 : 3));
      CHECK(max_output_difference(g, out) < 2e-5);
    }
  }
}

TEST_CASE("winograd_conv: the four Computes' texts") {
  WinogradConv c;
  c.x = "xp", c.w = "w", c.bias = "b", c.u = "u", c.v = "v", c.m = "m", c.y = "y";
  c.n = 2, c.ci = 32, c.co = 64, c.oh = 5, c.ow = 4;
  WinogradExprs e = winograd_exprs(c);
  CHECK(count_lines(e.weights) == 16);
  CHECK(count_lines(e.input) == 16);
  CHECK(count_lines(e.output) == 4);
  CHECK(e.product == "m(e_, t_, k_) +=! v(e_, t_, c_) * u(e_, floor(k_ / 16), c_, k_ % 16) where k_ in 0:64");
  // B^T d B: four corners of the 4 x 4 tile for element (0, 0); tiles of 3 x 2 per image.
  CHECK(e.input.substr(0, e.input.find('\n')) ==
        "v(0, 6 * n_ + 2 * th_ + tw_, 16 * cb_ + l_) = xp(n_, cb_, 2 * th_ + 0, 2 * tw_ + 0, l_) - "
        "xp(n_, cb_, 2 * th_ + 0, 2 * tw_ + 2, l_) - xp(n_, cb_, 2 * th_ + 2, 2 * tw_ + 0, l_) + "
        "xp(n_, cb_, 2 * th_ + 2, 2 * tw_ + 2, l_) where n_ in 0:2, th_ in 0:3, tw_ in 0:2, cb_ in 0:2, l_ in 0:16");
  // G g G^T, element (1, 1): all nine taps at a quarter.
  std::string u5;
  std::istringstream lines(e.weights);
  for (int i = 0; i <= 5; ++i) std::getline(lines, u5);
  CHECK(u5.rfind("u(5, kb_, c_, l_) = 0.25 * w(16 * kb_ + l_, c_, 0, 0) + 0.25 * ", 0) == 0);
  std::size_t taps = 0;
  for (std::size_t at = u5.find("w("); at != std::string::npos; at = u5.find("w(", at + 1)) ++taps;
  CHECK(taps == 9);
  // The output's pixel (1, 0) exists only in the first two of three tile rows (Oh = 5), with the bias.
  std::istringstream out(e.output);
  std::string y10;
  for (int i = 0; i <= 2; ++i) std::getline(out, y10);
  CHECK(y10.rfind("y(n_, kb_, 2 * th_ + 1, 2 * tw_ + 0, l_) = ", 0) == 0);
  CHECK(y10.find(" + b(16 * kb_ + l_) where n_ in 0:2, kb_ in 0:4, th_ in 0:2, tw_ in 0:2, l_ in 0:16") !=
        std::string::npos);
  CHECK(winograd_tiles(5) == 3);
  CHECK(winograd_input_extent(5) == 8);
}

TEST_CASE("winograd_conv: in bands of tile rows (one, two or three rows a band, a partial last band) equals Conv") {
  Chain shapes[] = {
      {1, 16, 9, 11, 16, {1, 1, 1, 1}},                // 9x11 output: 5 tile rows, the last one half
      {2, 32, 7, 6, 48, {1, 1, 1, 1}, 1, 1, 3, true},  // batch 2, bias: 4 tile rows
      {1, 16, 12, 7, 16, {0, 1, 2, 1}},                // asymmetric pads: 12x7 output, 6 tile rows
  };
  for (const Chain &c : shapes) {
    const std::int64_t oh = c.h + c.pads[0] + c.pads[2] - 2, ow = c.w + c.pads[1] + c.pads[3] - 2;
    const std::int64_t tile_rows = winograd_tiles(oh), row_bytes = 4 * 16 * c.n * winograd_tiles(ow) * (c.ci + c.co);
    for (std::int64_t rows : {1, 2, 3}) {
      INFO(describe(c) << ", " << rows << " tile rows a band");
      Graph g = chain_graph(c);
      BlockConvOptions o = with_winograd();
      o.winograd_band_bytes = rows * row_bytes + row_bytes / 2;  // rounds down to `rows`
      PassStats st;
      Graph out = eliminate_dead_nodes(block_conv_layout(g, &st, o));
      const std::int64_t bands = (tile_rows + rows - 1) / rows;
      CHECK(st.counts["convs as Winograd F(2x2, 3x3)"] == 1);
      CHECK(st.counts["Winograd bands"] == (bands > 1 ? bands : 0));
      CHECK(out.tensor("y").type.str() == g.tensor("y").type.str());
      CHECK(max_output_difference(g, out) < 2e-5);
    }
  }
  // One band: no join, the output transform writes the blocked output.
  Graph g = chain_graph(Chain{});
  BlockConvOptions o = with_winograd();
  o.winograd_band_bytes = 0;
  PassStats st;
  block_conv_layout(g, &st, o);
  CHECK(st.counts.count("Winograd bands") == 0);
  // The join's text: one copy per band, the last one shorter.
  CHECK(winograd_join("y", {"r0", "r1"}, {1, 2, 5, 4, 16}, 4) ==
        "y(n_, kb_, h_, w_, l_) = r0(n_, kb_, h_, w_, l_) where n_ in 0:1, kb_ in 0:2, h_ in 0:4, w_ in 0:4, l_ in 0:16\n"
        "y(n_, kb_, 4 + h_, w_, l_) = r1(n_, kb_, h_, w_, l_) where n_ in 0:1, kb_ in 0:2, h_ in 0:1, w_ in 0:4, l_ in 0:16");
}

TEST_CASE("winograd_conv: not taken for strides, dilations, other kernels, NCHW inputs, partial blocks, or when off") {
  struct Case {
    const char *what;
    Chain c;
    BlockConvOptions o;
  };
  Chain strided, dilated, five, partial_out, partial_in;
  strided.stride = 2;
  dilated.dilation = 2;
  dilated.h = dilated.w = 10;
  five.k = 5;
  five.pads[0] = five.pads[1] = five.pads[2] = five.pads[3] = 2;
  partial_out.co = 24;  // the last output block is partial
  partial_in.ci = 24;  // the blocked input's last block is partial
  BlockConvOptions off = with_winograd();
  off.winograd = false;
  Case cases[] = {{"stride 2", strided, with_winograd()},  {"dilation 2", dilated, with_winograd()},
                  {"5x5", five, with_winograd()},          {"Co = 24", partial_out, with_winograd()},
                  {"Ci = 24", partial_in, with_winograd()}, {"option off", Chain{}, off}};
  for (const Case &k : cases) {
    INFO(std::string(k.what));
    Graph g = chain_graph(k.c);
    PassStats st;
    Graph out = eliminate_dead_nodes(block_conv_layout(g, &st, k.o));
    CHECK(st.counts.count("convs as Winograd F(2x2, 3x3)") == 0);
    CHECK(st.counts["convs blocked"] == 2);  // the direct blocked form instead
    CHECK(max_output_difference(g, out) < 1e-4);
  }
  // A 3x3 conv of the graph's NCHW input is not a candidate (its input is not blocked).
  Graph g;
  g.name = "first";
  g.add_input("x", {DType::F32, {1, 16, 8, 8}});
  g.add_input("W", {DType::F32, {16, 16, 3, 3}});
  g.add_node(make_node("Conv", {"x", "W"}, {"y"}, "c", {{"pads", {1, 1, 1, 1}}}));
  g.add_output("y");
  g.finalize();
  PassStats st;
  block_conv_layout(g, &st, with_winograd());
  CHECK(st.counts["convs blocked"] == 1);
  CHECK(st.counts.count("convs as Winograd F(2x2, 3x3)") == 0);
}
}
