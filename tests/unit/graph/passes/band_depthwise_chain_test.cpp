// band_depthwise_chain: row bands of expand -> depthwise -> project chains equal the chain on odd shapes, pads, kernels, biases and batch; taken only where it applies.
#include "graph/passes/band_depthwise_chain.h"

#include "graph/passes/batchnorm_scale_shift.h"
#include "graph/passes/eliminate_dead_nodes.h"
#include "run_graph.h"

#include <doctest/doctest.h>

#include <sstream>

using namespace atl;
using namespace atl::test;

namespace {

/// x [N, Ci, H, W] -> 1x1 Conv to E channels -> BatchNormalization -> Clip(0, 6) -> depthwise KxK Conv
/// (pads, stride) -> Relu -> 1x1 Conv to Ci -> BatchNormalization -> Add(x) (when the shapes allow).
struct Block {
  std::int64_t n = 1, ci = 8, h = 13, w = 11, e = 24, k = 3;
  std::int64_t pads[4] = {1, 1, 1, 1};
  std::int64_t stride = 1;
  bool bias = false;
};

std::string describe(const Block &b) {
  std::ostringstream os;
  os << "n" << b.n << " ci" << b.ci << " " << b.h << "x" << b.w << " e" << b.e << " k" << b.k << " pads " << b.pads[0]
     << "," << b.pads[1] << "," << b.pads[2] << "," << b.pads[3] << " s" << b.stride << (b.bias ? " bias" : "");
  return os.str();
}

void add_bn(Graph &g, const std::string &name, std::int64_t c, unsigned seed) {
  const char *parts[] = {"_scale", "_b", "_mean", "_var"};
  for (unsigned i = 0; i < 4; ++i) {
    std::vector<double> v = random_values(static_cast<std::size_t>(c), seed + i);
    if (i == 3)
      for (double &x : v) x = 1.25 + x;  // positive variances
    g.add_weight(name + parts[i], {DType::F32, {c}}, {}, v);
  }
}

Graph block_graph(const Block &b) {
  Graph g;
  g.name = "block";
  g.add_input("x", {DType::F32, {b.n, b.ci, b.h, b.w}});
  g.add_weight("we", {DType::F32, {b.e, b.ci, 1, 1}});
  g.add_weight("wd", {DType::F32, {b.e, 1, b.k, b.k}});
  g.add_weight("wp", {DType::F32, {b.ci, b.e, 1, 1}});
  std::vector<std::string> ein = {"x", "we"}, din = {"ea", "wd"}, pin = {"dr", "wp"};
  if (b.bias) {
    g.add_weight("be", {DType::F32, {b.e}});
    g.add_weight("bd", {DType::F32, {b.e}});
    g.add_weight("bp", {DType::F32, {b.ci}});
    ein.push_back("be"), din.push_back("bd"), pin.push_back("bp");
  }
  add_bn(g, "bn1", b.e, 11);
  add_bn(g, "bn2", b.ci, 21);
  g.add_node(make_node("Conv", ein, {"e"}, "expand"));
  g.add_node(make_node("BatchNormalization", {"e", "bn1_scale", "bn1_b", "bn1_mean", "bn1_var"}, {"eb"}, "bn_expand"));
  g.add_node(make_node("Clip", {"eb"}, {"ea"}, "relu6", {{"min", 0.0}, {"max", 6.0}}));
  g.add_node(make_node("Conv", din, {"d"}, "depthwise",
                       {{"group", b.e},
                        {"kernel_shape", {b.k, b.k}},
                        {"pads", {b.pads[0], b.pads[1], b.pads[2], b.pads[3]}},
                        {"strides", {b.stride, b.stride}}}));
  g.add_node(make_node("Relu", {"d"}, {"dr"}, "relu"));
  g.add_node(make_node("Conv", pin, {"p"}, "project"));
  g.add_node(make_node("BatchNormalization", {"p", "bn2_scale", "bn2_b", "bn2_mean", "bn2_var"}, {"pb"}, "bn_project"));
  const std::int64_t oh = (b.h + b.pads[0] + b.pads[2] - b.k) / b.stride + 1, ow = (b.w + b.pads[1] + b.pads[3] - b.k) / b.stride + 1;
  if (oh == b.h && ow == b.w) {
    g.add_node(make_node("Add", {"pb", "x"}, {"y"}, "residual"));
    g.add_output("y");
  } else {
    g.add_output("pb");
  }
  g.finalize();
  return g;
}

/// Bytes of one row of the expanded tensors (the band budget's unit).
std::int64_t row_bytes(const Block &b) {
  const std::int64_t ow = b.w + b.pads[1] + b.pads[3] - b.k + 1;
  return 4 * b.n * b.e * (b.w + ow);
}

}  // namespace

TEST_SUITE("graph") {
TEST_CASE("band_depthwise_chain: bands equal the chain on odd shapes, asymmetric pads, 5x5, biases, batch 2") {
  Block shapes[] = {
      {},                                            // 13x11, 3x3 pads 1, residual Add after the chain
      {2, 8, 9, 7, 16, 3, {1, 1, 1, 1}, 1, true},    // batch 2, biases on all three convs
      {1, 4, 12, 10, 12, 3, {0, 1, 2, 1}},           // asymmetric pads: top 0, bottom 2
      {1, 4, 11, 9, 8, 5, {2, 2, 2, 2}},             // 5x5
      {1, 4, 10, 9, 8, 3, {0, 0, 0, 0}},             // no padding: 8x7 output, no residual
  };
  for (const Block &b : shapes)
    for (std::int64_t rows : {3, 4, 5}) {
      INFO(describe(b) << ", " << rows << " rows a band");
      Graph g = block_graph(b);
      BandChainOptions o;
      o.band_bytes = rows * row_bytes(b);
      PassStats st;
      Graph out = eliminate_dead_nodes(band_depthwise_chain(g, &st, o));
      const std::int64_t oh = b.h + b.pads[0] + b.pads[2] - b.k + 1;
      const std::int64_t per_band = std::max(rows, b.k), bands = (oh + per_band - 1) / per_band;
      CHECK(st.counts["depthwise chains in bands"] == 1);
      CHECK(st.counts["bands"] == bands);
      for (const std::string &y : g.outputs) CHECK(out.tensor(y).type.str() == g.tensor(y).type.str());
      CHECK(max_output_difference(g, out) < 1e-4);
      // The BatchNormalizations of the bands share their parameters.
      PassStats bs;
      Graph ss = batchnorm_scale_shift(out, &bs);
      CHECK(bs.counts["batch normalizations as scale and shift"] == 2 * bands);
      int params = 0;
      for (NodeId v : ss.order()) params += ss.node(v).name.size() > 3 && ss.node(v).name.substr(ss.node(v).name.size() - 3) == "_ss";
      CHECK(params == 2);
      CHECK(max_output_difference(g, ss) < 1e-4);
    }
}

TEST_CASE("band_depthwise_chain: not taken for strides, grouped-but-not-depthwise convs, shared tensors, or one band") {
  // Stride 2.
  Block strided;
  strided.stride = 2;
  BandChainOptions small;
  small.band_bytes = 1;
  PassStats st;
  band_depthwise_chain(block_graph(strided), &st, small);
  CHECK(st.counts.count("depthwise chains in bands") == 0);
  // The whole chain fits in one band.
  st = {};
  band_depthwise_chain(block_graph(Block{}), &st, BandChainOptions{});
  CHECK(st.counts.count("depthwise chains in bands") == 0);
  // A tensor of the chain read twice (eb is also a graph output).
  Graph g = block_graph(Block{});
  g.add_output("eb");
  g.finalize();
  st = {};
  band_depthwise_chain(g, &st, small);
  CHECK(st.counts.count("depthwise chains in bands") == 0);
  // The middle conv is a full 3x3 conv, not a depthwise one.
  Graph full;
  full.name = "full";
  full.add_input("x", {DType::F32, {1, 4, 9, 9}});
  full.add_weight("we", {DType::F32, {8, 4, 1, 1}});
  full.add_weight("wm", {DType::F32, {8, 8, 3, 3}});
  full.add_weight("wp", {DType::F32, {4, 8, 1, 1}});
  full.add_node(make_node("Conv", {"x", "we"}, {"e"}, "expand"));
  full.add_node(make_node("Conv", {"e", "wm"}, {"m"}, "middle", {{"pads", {1, 1, 1, 1}}}));
  full.add_node(make_node("Conv", {"m", "wp"}, {"y"}, "project"));
  full.add_output("y");
  full.finalize();
  st = {};
  band_depthwise_chain(full, &st, small);
  CHECK(st.counts.count("depthwise chains in bands") == 0);
}
}
