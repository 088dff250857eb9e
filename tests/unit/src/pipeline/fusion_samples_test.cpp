// Every sample graph compiled fused and with fuse "none" (simplified, views as aliases) verifies against the reference.
#include <atoll/batch.h>
#include <atoll/pipeline.h>

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
    none.schedule.fuse = "none";
    std::size_t fused = compile_and_verify(g, label + " (fused)");
    std::size_t unfused = compile_and_verify(none, label + " (fuse none)");
    CHECK_MESSAGE(fused <= unfused, label);
    fused_total += fused;
    unfused_total += unfused;
  }
  CHECK(fused_total < unfused_total);
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
