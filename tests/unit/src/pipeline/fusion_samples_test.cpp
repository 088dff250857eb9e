// Every sample graph compiled fused and with fuse "none" (simplified, views as aliases) verifies against the reference.
#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

using namespace atl;

namespace {

/// Every graph of samples/*.json.
std::vector<std::pair<std::string, Graph>> samples() {
  std::vector<std::filesystem::path> files;
  for (const auto &e : std::filesystem::directory_iterator(ATOLL_SAMPLES_DIR))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<std::pair<std::string, Graph>> out;
  for (const auto &f : files)
    for (auto &bg : read_batch_file(f.string()).graphs) {
      REQUIRE_MESSAGE(bg.graph.has_value(), f.filename().string() << ": " << bg.name);
      out.emplace_back(f.stem().string() + "/" + bg.name, *bg.graph);
    }
  return out;
}

/// Compiles and runs `g` at its parameters' minimum; returns the kernel count.
std::size_t compile_and_verify(const Graph &g, const std::string &label) {
  INFO(label);
  CompiledGraph cg = compile_graph(g, CompileOptions{});
  std::map<std::string, std::int64_t> params;
  for (const auto &[p, r] : g.params) params[p] = r.min;
  Graph concrete = params.empty() ? g : g.instantiate(params);
  std::map<std::string, Tensor> feeds = make_graph_inputs(concrete);
  VerifyResult v = compare_outputs(run_compiled(cg, concrete, feeds, params), run_reference(concrete, feeds),
                                   concrete.outputs);
  CHECK_MESSAGE(v.passed, v.detail);
  return cg.clusters.size();
}

}  // namespace

TEST_SUITE("src") {
TEST_CASE("fusion: every sample verifies fused and unfused, with fewer kernels fused") {
  std::size_t fused_total = 0, unfused_total = 0;
  for (auto &[label, g] : samples()) {
    Graph none = g;
    none.schedule.fuse.mode = FuseHint::Mode::None;
    std::size_t fused = compile_and_verify(g, label + " (fused)");
    std::size_t unfused = compile_and_verify(none, label + " (fuse none)");
    CHECK_MESSAGE(fused <= unfused, label);
    fused_total += fused;
    unfused_total += unfused;
  }
  CHECK(fused_total < unfused_total);
}

TEST_CASE("fusion: convolutions with a bias (BatchNormalization folded by an exporter) keep their Relu, blocked or not") {
  // The ResNet-50 bottleneck as exported with BatchNormalization folded:
  // Conv(x, W, B) -> Relu. block_conv_layout writes the 1x1 and 3x3 convs
  // as blocked Compute contractions whose bias is a second, in-place
  // statement; the Relu must still join them (it had run as a kernel of its
  // own, 0.03 and 0.14 ms on AMD Zen 3).
  std::string text = R"({"atoll": 1, "graphs": [{"name": "g",
    "inputs": [{"name": "x", "shape": [1, 256, 56, 56]}],
    "weights": [{"name": "w1", "shape": [64, 256, 1, 1]}, {"name": "b1", "shape": [64]},
                {"name": "w2", "shape": [64, 64, 3, 3]}, {"name": "b2", "shape": [64]},
                {"name": "w3", "shape": [256, 64, 1, 1]}, {"name": "b3", "shape": [256]}],
    "outputs": ["y"],
    "nodes": [{"op": "Conv", "name": "conv1", "inputs": ["x", "w1", "b1"], "outputs": ["c1"]},
              {"op": "Relu", "name": "relu1", "inputs": ["c1"], "outputs": ["r1"]},
              {"op": "Conv", "name": "conv2", "inputs": ["r1", "w2", "b2"], "outputs": ["c2"],
               "attrs": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
              {"op": "Relu", "name": "relu2", "inputs": ["c2"], "outputs": ["r2"]},
              {"op": "Conv", "name": "conv3", "inputs": ["r2", "w3", "b3"], "outputs": ["c3"]},
              {"op": "Add", "name": "residual", "inputs": ["c3", "x"], "outputs": ["s"]},
              {"op": "Relu", "name": "relu3", "inputs": ["s"], "outputs": ["y"]}]}]})";
  Batch b = read_batch(text);
  REQUIRE(b.graphs.at(0).graph.has_value());
  const Graph &g = *b.graphs[0].graph;
  CompiledGraph cg = compile_graph(g, CompileOptions{});
  // conv2 (3x3) runs as Winograd F(2x2, 3x3) in bands of rows: its bias is
  // in the output transforms, and its Relu goes with the join of the bands.
  bool winograd = false;
  for (const auto &c : cg.clusters) winograd = winograd || c.name.rfind("conv2_wino_out", 0) == 0;
  CHECK(winograd);
  for (const char *relu : {"relu1", "relu2", "relu3"}) {
    bool alone = false;
    for (const auto &c : cg.clusters)
      if (c.name == relu) alone = std::string(relu) != "relu2" || c.ast_text.find("relu2_nchw") == std::string::npos;
    CHECK_MESSAGE(!alone, relu << " runs as a kernel of its own");
  }
  std::map<std::string, Tensor> feeds = make_graph_inputs(g);
  VerifyResult v = compare_outputs(run_compiled(cg, g, feeds, {}), run_reference(g, feeds), g.outputs);
  CHECK_MESSAGE(v.passed, v.detail);
}

TEST_CASE("fusion: views get no kernel and their aliases reach the runner") {
  Batch b = read_batch_file(std::string(ATOLL_SAMPLES_DIR) + "/bert_encoder_layer.json");
  const Graph &g = *b.graphs.at(0).graph;
  ClusterPlan plan = plan_clusters(g);
  CHECK(plan.no_kernel.size() >= 2);
  CompiledGraph cg = compile_graph(g, CompileOptions{});
  CHECK(cg.aliases.size() == plan.aliases.size());
  for (const auto &c : cg.clusters)
    for (NodeId v : plan.no_kernel) CHECK(c.name != g.node(v).name);
}
}
