// Expand -> depthwise -> project chains in row bands, compiled (JIT and C), equal the reference; fused peak memory below unfused.
#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

#include "graph/passes/band_depthwise_chain.h"
#include "graph/passes/eliminate_dead_nodes.h"
#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"

#include <doctest/doctest.h>

using namespace atl;

namespace {

/// MobileNetV2's inverted residual on x [N, C, H, W], expanded to E channels, with Relu6 and a residual Add.
Graph inverted_residual(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t e,
                        const char *fuse = "auto") {
  nlohmann::json g = {
      {"name", "ir"},
      {"inputs", {{{"name", "x"}, {"shape", {n, c, h, w}}}}},
      {"weights",
       {{{"name", "we"}, {"shape", {e, c, 1, 1}}},
        {{"name", "be"}, {"shape", {e}}},
        {{"name", "wd"}, {"shape", {e, 1, 3, 3}}},
        {{"name", "wp"}, {"shape", {c, e, 1, 1}}},
        {{"name", "bp"}, {"shape", {c}}}}},
      {"outputs", {"y"}},
      {"schedule", {{"fuse", fuse}}},
      {"nodes",
       {{{"op", "Conv"}, {"name", "expand"}, {"inputs", {"x", "we", "be"}}, {"outputs", {"e"}}},
        {{"op", "Clip"}, {"name", "relu6_e"}, {"inputs", {"e"}}, {"outputs", {"ea"}}, {"attrs", {{"min", 0.0}, {"max", 6.0}}}},
        {{"op", "Conv"},
         {"name", "depthwise"},
         {"inputs", {"ea", "wd"}},
         {"outputs", {"d"}},
         {"attrs", {{"group", e}, {"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}}},
        {{"op", "Clip"}, {"name", "relu6_d"}, {"inputs", {"d"}}, {"outputs", {"da"}}, {"attrs", {{"min", 0.0}, {"max", 6.0}}}},
        {{"op", "Conv"}, {"name", "project"}, {"inputs", {"da", "wp", "bp"}}, {"outputs", {"p"}}},
        {{"op", "Add"}, {"name", "residual"}, {"inputs", {"p", "x"}}, {"outputs", {"y"}}}}}};
  Batch b = read_batch(nlohmann::json{{"atoll", 1}, {"graphs", {g}}}.dump());
  REQUIRE(b.graphs.at(0).graph.has_value());
  return *b.graphs[0].graph;
}

}  // namespace

TEST_SUITE("src") {
TEST_CASE("band_depthwise_chain: compiled bands of 3 to 5 rows (partial last band, batch 2) equal the reference (JIT and C)") {
  struct Case {
    std::int64_t n, c, h, w, e, rows;
  };
  for (const Case &k : {Case{1, 8, 13, 11, 24, 3}, Case{2, 4, 10, 9, 16, 4}, Case{1, 8, 17, 6, 32, 5}})
    for (const char *target : {"cpu", "cpu-c"}) {
      INFO(k.n << "x" << k.c << "x" << k.h << "x" << k.w << " e" << k.e << ", " << k.rows << " rows a band, on " << target);
      Graph g = inverted_residual(k.n, k.c, k.h, k.w, k.e);
      BandChainOptions o;
      o.band_bytes = k.rows * 4 * k.n * k.e * 2 * k.w;
      PassStats st;
      Graph banded = eliminate_dead_nodes(band_depthwise_chain(g, &st, o));
      REQUIRE(st.counts["depthwise chains in bands"] == 1);
      CompileOptions co;
      co.target = target;
      CompiledGraph cg = compile_graph(banded, co);
      std::map<std::string, Tensor> feeds = make_graph_inputs(g);
      VerifyResult v = compare_outputs(run_compiled(cg, banded, feeds, {}), run_reference(g, feeds), g.outputs);
      CHECK_MESSAGE(v.passed, v.detail);
    }
}

TEST_CASE("band_depthwise_chain: compile_graph bands a large block when fusing (lower peak memory), not under fuse: none") {
  Graph fused = inverted_residual(1, 24, 56, 56, 144), unfused = inverted_residual(1, 24, 56, 56, 144, "none");
  CompiledGraph f = compile_graph(fused, {}), u = compile_graph(unfused, {});
  bool banded = false, banded_unfused = false;
  for (const auto &c : f.clusters) banded = banded || c.name.find("_band") != std::string::npos;
  for (const auto &c : u.clusters) banded_unfused = banded_unfused || c.name.find("_band") != std::string::npos;
  CHECK(banded);
  CHECK_FALSE(banded_unfused);
  memory::MemoryPlan pf = plan_memory(f, fused, {}), pu = plan_memory(u, unfused, {});
  CHECK(pf.peak_bytes() < pu.peak_bytes());
  // Kernels: 2 bands x 3 convs + the join (with the residual Add) against 6
  // unfused here; with BatchNormalizations (samples/mobilenetv2_block.json)
  // 10 against 12.
  CHECK(f.clusters.size() == 7);
  std::map<std::string, Tensor> feeds = make_graph_inputs(fused);
  VerifyResult v = compare_outputs(run_compiled(f, fused, feeds, {}), run_reference(fused, feeds), fused.outputs);
  CHECK_MESSAGE(v.passed, v.detail);
}
}
