// Every sample graph through every scheduler (isl, pluto, feautrier and the
// isl tree given back), forced fallbacks, and an illegal given tree refused.
#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

#include "backends/cpu/cpu_backend.h"
#include "polyhedral/compile_cluster.h"
#include "polyhedral/schedule/schedule.h"
#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <memory>

using namespace atl;

namespace {

/// One sample graph, instantiated at its parameters' minimum.
struct SampleGraph {
  std::string label;  ///< "batch/graph"
  Graph graph;
  std::map<std::string, std::int64_t> params;
};

std::vector<SampleGraph> sample_graphs() {
  std::vector<SampleGraph> out;
  std::vector<std::filesystem::path> files;
  for (const auto &e : std::filesystem::directory_iterator(ATOLL_SAMPLES_DIR))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto &f : files) {
    Batch b = read_batch_file(f.string());
    for (auto &bg : b.graphs) {
      REQUIRE_MESSAGE(bg.graph.has_value(), f.filename().string() << ": " << bg.name);
      SampleGraph s{f.stem().string() + "/" + bg.name, *bg.graph, {}};
      for (const auto &[p, r] : s.graph.params) s.params[p] = r.min;
      out.push_back(std::move(s));
    }
  }
  return out;
}

/// Compiles every cluster of `g` with `opt` (for "given": the isl schedule fed back).
std::vector<poly::ClusterResult> compile_all(const Graph &g, const poly::PolyOptions &opt) {
  std::vector<poly::ClusterResult> out;
  for (const auto &cluster : graph_clusters(g)) {
    poly::PolyOptions o = opt;
    if (o.scheduler == "given") {
      poly::PolyOptions isl = opt;
      isl.scheduler = "isl";
      o.tree = poly::compile_cluster(g, cluster, isl).schedule_yaml;
    }
    out.push_back(poly::compile_cluster(g, cluster, o));
  }
  return out;
}

/// Runs compiled clusters (kernels of `exe`) on the graph's test data and compares with the reference.
VerifyResult run_and_compare(const Graph &g, const std::map<std::string, std::int64_t> &params,
                             const std::vector<poly::ClusterResult> &clusters,
                             const std::shared_ptr<cpu::CpuExecutable> &exe) {
  Graph concrete = params.empty() ? g : g.instantiate(params);
  std::map<std::string, Tensor> feeds = make_graph_inputs(concrete);
  std::map<std::string, Tensor> ref = run_reference(concrete, feeds);
  CompiledGraph cg;
  cg.clusters = clusters;
  for (const auto &c : clusters) {
    cpu::KernelEntry e = exe->entry(c.kernel.name);
    REQUIRE_MESSAGE(static_cast<bool>(e), "no kernel " << c.kernel.name);
    cg.functions.push_back(e);
  }
  cg.keep_alive = exe;
  return compare_outputs(run_compiled(cg, concrete, feeds, params), ref, concrete.outputs);
}

Graph one_graph(const std::string &json) {
  Batch b = read_batch(json);
  REQUIRE(b.graphs.size() == 1);
  REQUIRE_MESSAGE(b.graphs[0].graph.has_value(), (b.graphs[0].error ? b.graphs[0].error->what() : ""));
  return *b.graphs[0].graph;
}

const char *kMatmul = R"({"atoll": 1, "graphs": [{"name": "mm", "inputs": [{"name": "A", "shape": [7, 5]}],
  "weights": [{"name": "B", "shape": [5, 3]}], "outputs": ["C"],
  "nodes": [{"op": "MatMul", "name": "mm", "inputs": ["A", "B"], "outputs": ["C"]}]}]})";

const char *kPrefix = R"({"atoll": 1, "graphs": [{"name": "prefix", "inputs": [{"name": "X", "shape": [16]}],
  "outputs": ["S"], "nodes": [{"op": "Compute", "name": "scan", "inputs": ["X"], "outputs": ["S"],
  "attrs": {"expr": "S(i) = X(i) where i in 0:16\nS(i) += S(i - 1) where i in 1:16", "shape": [16]}}]}]})";

}  // namespace

TEST_SUITE("polyhedral") {
TEST_CASE("every sample graph verifies under isl, pluto, feautrier and the given isl tree") {
  std::vector<SampleGraph> samples = sample_graphs();
  REQUIRE(samples.size() >= 5);
  for (const std::string scheduler : {"isl", "pluto", "feautrier", "given"}) {
    INFO("scheduler " << scheduler);
    poly::PolyOptions opt;
    opt.scheduler = scheduler;
    std::vector<std::vector<poly::ClusterResult>> compiled(samples.size());
    std::vector<poly::LKernel> kernels;
    std::vector<bool> ok(samples.size(), false);
    for (std::size_t i = 0; i < samples.size(); ++i) {
      INFO(samples[i].label);
      try {
        compiled[i] = compile_all(samples[i].graph, opt);
      } catch (const std::exception &e) {
        FAIL_CHECK("compile failed: " << std::string(e.what()));
        continue;
      }
      for (auto &c : compiled[i]) {
        // One JIT module for all graphs: kernel names must be unique.
        c.kernel.name = "g" + std::to_string(i) + "_" + c.kernel.name;
        kernels.push_back(c.kernel);
        if (scheduler == "pluto") {
          CHECK_MESSAGE(c.fallbacks.empty(), c.name << ": " << (c.fallbacks.empty() ? "" : c.fallbacks[0]));
          CHECK_MESSAGE(c.algorithm.rfind("pluto", 0) == 0, c.name << ": " << c.algorithm);
        }
        if (scheduler == "given") CHECK_MESSAGE(c.algorithm == "given", c.name << ": " << c.algorithm);
      }
      ok[i] = true;
    }
    std::shared_ptr<cpu::CpuExecutable> exe = cpu::jit_kernels(kernels);
    for (std::size_t i = 0; i < samples.size(); ++i) {
      if (!ok[i]) continue;
      INFO(samples[i].label);
      VerifyResult v = run_and_compare(samples[i].graph, samples[i].params, compiled[i], exe);
      CHECK_MESSAGE(v.passed, v.detail);
    }
  }
}

TEST_CASE("forced scheduler fallbacks are recorded and the code stays correct") {
  Graph g = one_graph(kMatmul);
  for (const std::string force : {"quota", "all"}) {
    INFO("force_fallback " << force);
    poly::PolyOptions opt;
    opt.force_fallback = force;
    std::vector<poly::ClusterResult> clusters = compile_all(g, opt);
    REQUIRE(clusters.size() == 1);
    CHECK_FALSE(clusters[0].fallbacks.empty());
    if (force == "all") CHECK(clusters[0].algorithm == "original");
    std::vector<poly::LKernel> kernels{clusters[0].kernel};
    VerifyResult v = run_and_compare(g, {}, clusters, cpu::jit_kernels(kernels));
    CHECK_MESSAGE(v.passed, v.detail);
  }
}

TEST_CASE("an illegal given tree (a reversed prefix sum) names the violated dependence") {
  Graph g = one_graph(kPrefix);
  poly::PolyOptions opt;
  opt.scheduler = "given";
  opt.tree = R"(domain: "{ scan_0[i] : 0 <= i <= 15; scan_1[i] : 0 < i <= 15 }"
child:
  sequence:
  - filter: "{ scan_0[i] }"
  - filter: "{ scan_1[i] }"
    child:
      schedule: "[{ scan_1[i] -> [(-i)] }]"
)";
  std::vector<std::vector<NodeId>> clusters = graph_clusters(g);
  REQUIRE(clusters.size() == 1);
  bool refused = false;
  try {
    poly::compile_cluster(g, clusters[0], opt);
  } catch (const poly::IllegalSchedule &e) {
    refused = true;
    const poly::Violation &v = e.violation();
    CHECK(v.kind == "flow");
    CHECK(v.source == "scan_1");
    CHECK(v.target == "scan_1");
    CHECK(v.relation.find("scan_1[i] -> scan_1[i' = 1 + i]") != std::string::npos);
    CHECK(v.dimension == 1);
    std::string msg = e.what();
    CHECK(msg.find("flow dependence from statement scan_1 to statement scan_1") != std::string::npos);
    CHECK(msg.find("scan_1[i] -> scan_1[i' = 1 + i]") != std::string::npos);
    CHECK(msg.find("schedule dimension 1") != std::string::npos);
  }
  CHECK(refused);
}
}
