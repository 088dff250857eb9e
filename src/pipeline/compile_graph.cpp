// Compiles a graph cluster by cluster: polyhedral layer -> loop AST -> CPU
// backend (clustering in graph_clusters, per-cluster options in cluster_options.cpp).
#include "src/pipeline/compile_graph.h"

#include "backends/cpu/cpu_backend.h"

#include <chrono>
#include <set>

namespace atl {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

UserError hint_error(const Graph &g, const std::string &hint, const std::string &why) {
  Location loc{g.pointer.empty() ? "" : g.pointer + "/schedule/" + hint, g.name};
  loc.hint = hint;
  return UserError(why, loc);
}

}  // namespace

std::vector<std::vector<NodeId>> graph_clusters(const Graph &graph) {
  const nlohmann::json &fuse = graph.schedule.fuse;
  if (fuse.is_array())
    for (const auto &group : fuse)
      if (group.size() > 1)
        throw hint_error(graph, "fuse", "fusing several nodes into one kernel is not available yet; use \"auto\" or \"none\"");
  std::vector<std::vector<NodeId>> clusters;
  for (NodeId v : graph.order()) clusters.push_back({v});
  return clusters;
}

std::vector<poly::ClusterResult> schedule_graph(const Graph &graph, const CompileOptions &options) {
  std::vector<std::vector<NodeId>> clusters = graph_clusters(graph);
  if (graph.schedule.tree.is_object()) {
    std::set<std::string> names;
    for (const auto &c : clusters) names.insert(graph.node(c.front()).name);
    for (const auto &[key, value] : graph.schedule.tree.items())
      if (!names.count(key)) {
        std::string list;
        for (const std::string &n : names) list += (list.empty() ? "" : ", ") + n;
        throw hint_error(graph, "tree", "no cluster named '" + key + "' (clusters: " + list + ")");
      }
  }
  std::vector<poly::ClusterResult> out;
  for (const auto &cluster : clusters) {
    const Node &first = graph.node(cluster.front());
    poly::PolyOptions po = cluster_options(graph, first.name, clusters.size(), options);
    try {
      out.push_back(poly::compile_cluster(graph, cluster, po));
    } catch (const UserError &e) {
      throw e.with({first.pointer, graph.name, first.name});
    }
  }
  return out;
}

CompiledGraph compile_graph(const Graph &graph, const CompileOptions &options) {
  auto t0 = Clock::now();
  CompiledGraph out;
  out.clusters = schedule_graph(graph, options);
  for (const auto &r : out.clusters) {
    for (const std::string &f : r.fallbacks) out.fallbacks.push_back(r.name + ": " + f);
    for (const auto &[stage, ms] : r.timings_ms) out.stage_ms[stage] += ms;
  }
  auto tc = Clock::now();
  std::vector<poly::LKernel> kernels;
  for (const auto &c : out.clusters) kernels.push_back(c.kernel);
  std::shared_ptr<cpu::CpuExecutable> exe;
  if (options.target == "cpu")
    exe = cpu::jit_kernels(kernels);
  else if (options.target == "cpu-c")
    exe = cpu::build_c_kernels(kernels);
  else
    throw UserError("target " + options.target + ": code generation is not available yet");
  for (const auto &k : kernels) {
    cpu::KernelEntry e = exe->entry(k.name);
    ATOLL_ASSERT(e, "the backend lost kernel " + k.name);
    out.functions.push_back(e);
  }
  out.keep_alive = exe;
  out.stage_ms["codegen"] += ms_since(tc);
  out.compile_ms = ms_since(t0);
  return out;
}

}  // namespace atl
