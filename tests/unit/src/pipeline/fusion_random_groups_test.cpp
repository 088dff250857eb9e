// Random legal `fuse` groupings of the sample graphs and of small random graphs keep outputs equal to the reference.
#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

#include "backends/cpu/cpu_backend.h"
#include "graph/fusion/check_legality.h"
#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"

#include "tests/unit/src/pipeline/hint_json.h"
#include "graph/ir/node_graph.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>

using namespace atl;

namespace {

/// A graph with a random legal grouping, compiled but not yet linked.
struct Variant {
  std::string label;  ///< source graph and seed, printed on failure
  Graph graph;
  ClusterPlan plan;
  std::vector<poly::ClusterResult> clusters;
};

/// Random legal groups of `g`'s kernel nodes: random edges (and now and then
/// random pairs) merged while the grouping stays legal.
nlohmann::json random_groups(const Graph &g, std::mt19937 &rng) {
  std::set<NodeId> views;
  (void)memory::plan_views(g, &views);
  std::vector<NodeId> group_of(g.num_nodes());
  for (NodeId v = 0; v < g.num_nodes(); ++v) group_of[v] = v;
  std::vector<std::pair<NodeId, NodeId>> edges;
  for (auto [e, end] = boost::edges(g.nodes()); e != end; ++e)
    edges.emplace_back(boost::source(*e, g.nodes()), boost::target(*e, g.nodes()));
  std::size_t tries = g.num_nodes();
  for (std::size_t t = 0; t < tries; ++t) {
    NodeId a, b;
    if (!edges.empty() && rng() % 5 != 0) {
      std::tie(a, b) = edges[rng() % edges.size()];
    } else {
      a = rng() % g.num_nodes();
      b = rng() % g.num_nodes();
    }
    if (views.count(a) || views.count(b) || group_of[a] == group_of[b]) continue;
    std::vector<NodeId> next = group_of;
    NodeId from = group_of[b];
    std::vector<NodeId> merged;
    for (NodeId v = 0; v < g.num_nodes(); ++v) {
      if (next[v] == from) next[v] = group_of[a];
      if (next[v] == group_of[a]) merged.push_back(v);
    }
    if (fusion::find_reentry(g, merged).empty() && fusion::find_group_cycle(g, next).empty()) group_of = next;
  }
  std::map<NodeId, std::vector<std::string>> groups;
  for (NodeId v = 0; v < g.num_nodes(); ++v)
    if (!views.count(v)) groups[group_of[v]].push_back(g.node(v).name);
  nlohmann::json out = nlohmann::json::array();
  for (auto &[id, names] : groups)
    if (names.size() > 1) out.push_back(names);
  return out;
}

/// A random graph of 3 to 8 operators on [4, 6] tensors: unary and binary
/// elementwise operators, broadcast bias, Softmax and MatMul.
Graph random_graph(std::mt19937 &rng, int index) {
  Graph g;
  g.name = "random" + std::to_string(index);
  g.add_input("x", {DType::F32, {4, 6}});
  g.add_weight("w", {DType::F32, {6, 6}});
  g.add_weight("bias", {DType::F32, {6}});
  std::vector<std::string> tensors{"x"};
  std::set<std::string> used;
  int n = 3 + static_cast<int>(rng() % 6);
  for (int i = 0; i < n; ++i) {
    Node node;
    node.name = "op" + std::to_string(i);
    std::string a = tensors[rng() % tensors.size()], b = tensors[rng() % tensors.size()];
    switch (rng() % 7) {
    case 0: node.op = "Relu"; node.inputs = {a}; break;
    case 1: node.op = "Neg"; node.inputs = {a}; break;
    case 2: node.op = "Add"; node.inputs = {a, b}; break;
    case 3: node.op = "Mul"; node.inputs = {a, b}; break;
    case 4: node.op = "Add"; node.inputs = {a, "bias"}; break;
    case 5: node.op = "Softmax"; node.inputs = {a}; node.attrs = {{"axis", -1}}; break;
    default: node.op = "MatMul"; node.inputs = {a, "w"}; break;
    }
    for (const std::string &t : node.inputs) used.insert(t);
    node.outputs = {"t" + std::to_string(i)};
    tensors.push_back(node.outputs[0]);
    g.add_node(node);
  }
  for (std::size_t i = 1; i < tensors.size(); ++i)
    if (!used.count(tensors[i]) || rng() % 4 == 0) g.add_output(tensors[i]);
  g.finalize();
  return g;
}

/// Plans and schedules `g` with the fuse groups; kernels renamed to be unique.
Variant make_variant(std::string label, Graph g, nlohmann::json groups, int index) {
  g.schedule.fuse = test::fuse_hint(groups);
  Variant v{std::move(label), g, plan_clusters(g), {}};
  for (const auto &c : v.plan.fusion.clusters) {
    v.clusters.push_back(poly::compile_cluster(v.graph, c, poly::PolyOptions{}));
    v.clusters.back().kernel.name = "v" + std::to_string(index) + "_" + v.clusters.back().kernel.name;
  }
  return v;
}

}  // namespace

TEST_SUITE("src") {
TEST_CASE("fusion: random legal groupings of samples and random graphs verify against the reference") {
  // Samples up to 12 nodes and 10 MFLOP (the reference interpreter and the
  // register-tiled convolutions make the big blocks minutes long; they run
  // fused and unfused in the samples tests) with one grouping each; small
  // random graphs with two each.
  const std::size_t kMaxSampleNodes = 12;
  const std::int64_t kMaxSampleFlops = 10'000'000;
  auto t0 = std::chrono::steady_clock::now();
  std::vector<Graph> sources;
  std::vector<std::string> names;
  std::vector<std::filesystem::path> files;
  for (const auto &e : std::filesystem::directory_iterator(ATOLL_SAMPLES_DIR))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto &f : files)
    for (auto &bg : read_batch_file(f.string()).graphs)
      if (bg.graph && bg.graph->num_nodes() > 1 && bg.graph->num_nodes() <= kMaxSampleNodes && bg.graph->params.empty() &&
          bg.graph->flops() <= kMaxSampleFlops) {
        sources.push_back(*bg.graph);
        names.push_back(f.stem().string() + "/" + bg.name);
      }
  const int kRandomGraphs = 16;
  for (int i = 0; i < kRandomGraphs; ++i) {
    std::mt19937 rng(1000 + i);
    sources.push_back(random_graph(rng, i));
    names.push_back("random graph seed " + std::to_string(1000 + i));
  }
  std::vector<Variant> variants;
  for (std::size_t s = 0; s < sources.size(); ++s)
    for (unsigned seed = 1; seed <= (names[s].rfind("random", 0) == 0 ? 2u : 1u); ++seed) {
      std::mt19937 rng(seed * 7919 + static_cast<unsigned>(s));
      nlohmann::json groups = random_groups(sources[s], rng);
      std::string label = names[s] + " grouping seed " + std::to_string(seed) + ": " + groups.dump();
      INFO(label);
      variants.push_back(make_variant(label, sources[s], groups, static_cast<int>(variants.size())));
    }
  double schedule_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<poly::LKernel> kernels;
  for (const Variant &v : variants)
    for (const auto &c : v.clusters) kernels.push_back(c.kernel);
  cpu::CpuOptions co;
  co.opt_level = 1;
  std::shared_ptr<cpu::CpuExecutable> jit = cpu::jit_kernels(kernels, co);
  int passed = 0;
  for (const Variant &v : variants) {
    INFO(v.label);
    CompiledGraph cg;
    cg.clusters = v.clusters;
    for (const auto &c : v.clusters) cg.functions.push_back(jit->entry(c.kernel.name));
    cg.keep_alive = jit;
    cg.aliases = v.plan.aliases;
    std::map<std::string, Tensor> feeds = make_graph_inputs(v.graph);
    VerifyResult r = compare_outputs(run_compiled(cg, v.graph, feeds, {}), run_reference(v.graph, feeds), v.graph.outputs);
    CHECK_MESSAGE(r.passed, r.detail);
    passed += r.passed;
  }
  CHECK(passed == static_cast<int>(variants.size()));
  MESSAGE(variants.size() << " groupings in "
                          << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s ("
                          << schedule_s << " s scheduling)");
}
}
