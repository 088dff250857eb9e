// Clusters that are the same computation under other names compile once
// (src/pipeline/same_clusters.cpp): which clusters count as the same, and
// that the renamed kernels compute what compiling each one does.
#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"

#include <doctest/doctest.h>

#include <set>

using namespace atl;

namespace {

/// A chain of residual blocks on x [1, C, 9, 11]: block k is
/// y_k = Relu(Conv3x3(Relu(Conv1x1(y_{k-1}))) + y_{k-1}), with weights of its
/// own. `taps` lists blocks whose Conv1x1 result is also a graph output;
/// `pads0` is block 0's 3x3 padding on the left (1: the same as the others).
Graph blocks(int count, std::vector<int> taps = {}, int pads0 = 1) {
  const int c = 8;
  nlohmann::json g = {{"name", "blocks"},
                      {"inputs", {{{"name", "x"}, {"shape", {1, c, 9, 11}}}}},
                      {"weights", nlohmann::json::array()},
                      {"nodes", nlohmann::json::array()},
                      {"outputs", nlohmann::json::array()}};
  std::string in = "x";
  for (int k = 0; k < count; ++k) {
    std::string s = std::to_string(k);
    g["weights"].push_back({{"name", "wa" + s}, {"shape", {c, c, 1, 1}}});
    g["weights"].push_back({{"name", "ba" + s}, {"shape", {c}}});
    g["weights"].push_back({{"name", "wb" + s}, {"shape", {c, c, 3, 3}}});
    int left = k == 0 ? pads0 : 1;
    g["nodes"].push_back({{"op", "Conv"}, {"name", "ca" + s}, {"inputs", {in, "wa" + s, "ba" + s}},
                          {"outputs", {"a" + s}}, {"attrs", {{"kernel_shape", {1, 1}}}}});
    g["nodes"].push_back({{"op", "Relu"}, {"name", "ra" + s}, {"inputs", {"a" + s}}, {"outputs", {"p" + s}}});
    g["nodes"].push_back({{"op", "Conv"}, {"name", "cb" + s}, {"inputs", {"p" + s, "wb" + s}},
                          {"outputs", {"b" + s}},
                          {"attrs", {{"kernel_shape", {3, 3}}, {"pads", {1, left, 1, 2 - left}}}}});
    g["nodes"].push_back({{"op", "Add"}, {"name", "add" + s}, {"inputs", {"b" + s, in}}, {"outputs", {"s" + s}}});
    g["nodes"].push_back({{"op", "Relu"}, {"name", "rb" + s}, {"inputs", {"s" + s}}, {"outputs", {"y" + s}}});
    for (int t : taps)
      if (t == k) g["outputs"].push_back("a" + s);
    in = "y" + s;
  }
  g["outputs"].push_back(in);
  Batch b = read_batch(nlohmann::json{{"atoll", 1}, {"graphs", {g}}}.dump());
  REQUIRE(b.graphs.at(0).graph.has_value());
  return *b.graphs[0].graph;
}

/// The shape key of the cluster whose first node is `first`.
std::string key_of(const Graph &prepared, const ClusterPlan &plan, const std::string &first) {
  for (const auto &c : plan.fusion.clusters)
    for (NodeId v : c)
      if (prepared.node(v).name == first) return cluster_shape(prepared, c).key;
  FAIL("no cluster holds " << first);
  return {};
}

}  // namespace

TEST_SUITE("src") {
TEST_CASE("same clusters: equal keys exactly for the same computation under other names") {
  Graph g = blocks(5, /*taps=*/{2}, /*pads0=*/0);
  PreparedGraph p = prepare_graph(g);
  ClusterPlan plan = plan_clusters(p.graph);
  // Blocks 1 and 3 are the same; block 0 pads differently; block 2's inner
  // tensor leaves the graph, so its first cluster differs; block 4's result
  // is the graph's, used by no other node.
  CHECK(key_of(p.graph, plan, "ca1") == key_of(p.graph, plan, "ca3"));
  CHECK(key_of(p.graph, plan, "ca1") != key_of(p.graph, plan, "ca2"));
  CHECK(key_of(p.graph, plan, "cb1") == key_of(p.graph, plan, "cb3"));
  CHECK(key_of(p.graph, plan, "cb1") != key_of(p.graph, plan, "cb0"));
  CHECK(key_of(p.graph, plan, "cb1") != key_of(p.graph, plan, "cb4"));
  ClusterShape a = cluster_shape(p.graph, plan.fusion.clusters.front());
  CHECK(a.key.find(p.graph.node(plan.fusion.clusters.front().front()).name) == std::string::npos);
}

TEST_CASE("same clusters: reused kernels equal each cluster compiled on its own and the reference (JIT and C)") {
  Graph g = blocks(6, /*taps=*/{2}, /*pads0=*/0);
  std::map<std::string, Tensor> feeds = make_graph_inputs(g);
  for (const char *target : {"cpu", "cpu-c"}) {
    INFO(target);
    CompileOptions co;
    co.target = target;
    CompiledGraph reused = compile_graph(g, co);
    co.reuse_clusters = false;
    CompiledGraph own = compile_graph(g, co);
    REQUIRE(reused.clusters.size() == own.clusters.size());

    std::set<std::string> names, compiled_itself;
    int reuses = 0;
    for (const auto &c : reused.clusters) {
      CHECK(names.insert(c.kernel.name).second);
      if (c.same_as.empty()) compiled_itself.insert(c.kernel.name);
    }
    for (std::size_t i = 0; i < reused.clusters.size(); ++i) {
      const poly::ClusterResult &c = reused.clusters[i];
      CHECK(own.clusters[i].same_as.empty());
      CHECK(c.name == own.clusters[i].name);
      if (c.same_as.empty()) continue;
      ++reuses;
      INFO(c.name << " reuses " << c.same_as);
      CHECK(compiled_itself.count(c.same_as));
      // Its arrays are its own tensors: those compiling it itself binds.
      CHECK(c.array_of_tensor.size() == own.clusters[i].array_of_tensor.size());
      for (const auto &[tensor, array] : own.clusters[i].array_of_tensor) CHECK(c.array_of_tensor.count(tensor));
      CHECK(c.kernel.arrays.size() == own.clusters[i].kernel.arrays.size());
      // Its explain text names its own cluster.
      CHECK(c.ast_text.find(c.kernel.name) != std::string::npos);
      CHECK(c.ast_text.find(c.same_as + "(") == std::string::npos);
      CHECK(reused.layouts[i].nodes == own.layouts[i].nodes);
    }
    CHECK(reuses >= 5);  // ca3, ca4, cb2, cb3, cb4 reuse block 1's

    auto a = run_compiled(reused, g, feeds, {});
    auto b = run_compiled(own, g, feeds, {});
    VerifyResult v = compare_outputs(a, run_reference(g, feeds), g.outputs);
    CHECK_MESSAGE(v.passed, v.detail);
    for (const std::string &out : g.outputs) {
      INFO(out);
      CHECK(a.at(out).data == b.at(out).data);
    }
  }
}
}
