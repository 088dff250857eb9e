// Winograd F(2x2, 3x3) convolutions compiled (JIT and C) equal the reference on fixed and random shapes with partial tiles.
#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

#include "graph/passes/block_conv_layout.h"
#include "graph/passes/eliminate_dead_nodes.h"
#include "graph/passes/winograd_conv.h"
#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"

#include <doctest/doctest.h>

#include <random>
#include <sstream>

using namespace atl;

namespace {

struct Shape3x3 {
  std::int64_t n, ci, h, w, co;
  std::int64_t pads[4];
  bool bias;
};

std::string describe(const Shape3x3 &s) {
  std::ostringstream os;
  os << "n" << s.n << " ci" << s.ci << " " << s.h << "x" << s.w << " co" << s.co << " pads " << s.pads[0] << ","
     << s.pads[1] << "," << s.pads[2] << "," << s.pads[3] << (s.bias ? " bias" : "");
  return os.str();
}

/// x [N, 16, H, W] -> 3x3 Conv (blocked, direct) -> Relu -> 3x3 Conv (the Winograd candidate) -> Relu, as a
/// batch. Both convs must be large enough for block_conv_layout's cost model (2^20 multiply-adds).
Graph chain(const Shape3x3 &s) {
  nlohmann::json g = {{"name", "wino"},
                      {"inputs", {{{"name", "x"}, {"shape", {s.n, 16, s.h, s.w}}}}},
                      {"weights",
                       {{{"name", "w1"}, {"shape", {s.ci, 16, 3, 3}}},
                        {{"name", "w2"}, {"shape", {s.co, s.ci, 3, 3}}},
                        {{"name", "b2"}, {"shape", {s.co}}}}},
                      {"outputs", {"y"}}};
  nlohmann::json conv2 = {{"op", "Conv"},
                          {"name", "conv2"},
                          {"inputs", s.bias ? nlohmann::json{"r1", "w2", "b2"} : nlohmann::json{"r1", "w2"}},
                          {"outputs", {"c2"}},
                          {"attrs", {{"kernel_shape", {3, 3}}, {"pads", {s.pads[0], s.pads[1], s.pads[2], s.pads[3]}}}}};
  g["nodes"] = {{{"op", "Conv"},
                 {"name", "conv1"},
                 {"inputs", {"x", "w1"}},
                 {"outputs", {"c1"}},
                 {"attrs", {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}}},
                {{"op", "Relu"}, {"name", "relu1"}, {"inputs", {"c1"}}, {"outputs", {"r1"}}},
                conv2,
                {{"op", "Relu"}, {"name", "relu2"}, {"inputs", {"c2"}}, {"outputs", {"y"}}}};
  if (!s.bias) g["weights"].erase(2);
  Batch b = read_batch(nlohmann::json{{"atoll", 1}, {"graphs", {g}}}.dump());
  REQUIRE(b.graphs.at(0).graph.has_value());
  return *b.graphs[0].graph;
}

void check(const Shape3x3 &s, const char *target) {
  INFO(describe(s) << " on " << target);
  Graph g = chain(s);
  CompileOptions co;
  co.target = target;
  CompiledGraph cg = compile_graph(g, co);
  bool winograd = false;
  for (const auto &c : cg.clusters) winograd = winograd || c.name.rfind("conv2_wino_out", 0) == 0;
  CHECK_MESSAGE(winograd, "conv2 did not become Winograd F(2x2, 3x3)");
  std::map<std::string, Tensor> feeds = make_graph_inputs(g);
  VerifyResult v = compare_outputs(run_compiled(cg, g, feeds, {}), run_reference(g, feeds), g.outputs);
  CHECK_MESSAGE(v.passed, v.detail);
}

}  // namespace

TEST_SUITE("src") {
TEST_CASE("winograd: compiled F(2x2, 3x3) convs equal the reference: partial tiles, no or asymmetric padding, bias, batch 2 (JIT and C)") {
  const Shape3x3 shapes[] = {
      {1, 32, 15, 17, 32, {1, 1, 1, 1}, true},  // odd output: partial tiles in both directions
      {2, 32, 12, 13, 16, {0, 1, 2, 1}, false},  // batch 2, asymmetric pads
      {1, 16, 22, 21, 48, {0, 0, 0, 0}, true},   // no padding: 20x19 output, three output blocks
  };
  for (const char *target : {"cpu", "cpu-c"})
    for (const Shape3x3 &s : shapes) check(s, target);
}

TEST_CASE("winograd: in bands of one to three tile rows, compiled results equal the reference (JIT and C)") {
  // The graph as block_conv_layout writes it with small bands, compiled as it
  // is (its convs are Computes now), against the reference of the Convs.
  const Shape3x3 shapes[] = {
      {1, 32, 15, 17, 32, {1, 1, 1, 1}, true},   // 8 tile rows, the last one half
      {2, 32, 12, 13, 16, {0, 1, 2, 1}, false},  // batch 2: a band's tiles are in both images
  };
  for (const Shape3x3 &s : shapes)
    for (std::int64_t rows : {1, 3})
      for (const char *target : {"cpu", "cpu-c"}) {
        INFO(describe(s) << ", " << rows << " tile rows a band, on " << target);
        Graph g = chain(s);
        BlockConvOptions o;
        o.winograd = true;
        const std::int64_t ow = s.w + s.pads[1] + s.pads[3] - 2;
        o.winograd_band_bytes = rows * 4 * 16 * s.n * winograd_tiles(ow) * (s.ci + s.co);
        PassStats st;
        Graph banded = eliminate_dead_nodes(block_conv_layout(g, &st, o));
        REQUIRE(st.counts["Winograd bands"] > 1);
        CompileOptions co;
        co.target = target;
        CompiledGraph cg = compile_graph(banded, co);
        std::map<std::string, Tensor> feeds = make_graph_inputs(g);
        VerifyResult v = compare_outputs(run_compiled(cg, banded, feeds, {}), run_reference(g, feeds), g.outputs);
        CHECK_MESSAGE(v.passed, v.detail);
      }
}

TEST_CASE("winograd: random shapes, pads and biases keep compiled results equal to the reference") {
  std::mt19937 rng(20261203);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  for (int k = 0; k < 5;) {
    Shape3x3 s{pick(1, 2), 16 * pick(1, 2), pick(9, 25), pick(9, 25), 16 * pick(1, 3),
               {pick(0, 1), pick(0, 1), pick(0, 1), pick(0, 1)}, pick(0, 1) == 1};
    const std::int64_t oh = s.h + s.pads[0] + s.pads[2] - 2, ow = s.w + s.pads[1] + s.pads[3] - 2;
    if (s.n * s.ci * 144 * s.h * s.w < (1 << 20) || s.n * s.ci * s.co * 9 * oh * ow < (1 << 20)) continue;
    check(s, "cpu");
    ++k;
  }
}
}
