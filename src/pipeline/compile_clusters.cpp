// The one path from a graph to code, shared by `compile`, `run` and `explain`:
// prepare_graph -> plan_clusters -> each cluster through the polyhedral layer
// (cluster_options) -> loop ASTs (schedule_graph) -> callable code (compile_graph).
#include "src/pipeline/compile_graph.h"

#include "backends/cpu/cpu_backend.h"

#include <chrono>
#include <map>
#include <set>

namespace atl {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// A `tree` hint keyed by cluster must name clusters of the compiled graph.
void check_tree_keys(const Graph &graph, const std::vector<std::vector<NodeId>> &clusters) {
  if (!graph.schedule.tree.is_object()) return;
  std::set<std::string> names;
  for (const auto &c : clusters) names.insert(graph.node(c.front()).name);
  for (const auto &[key, value] : graph.schedule.tree.items())
    if (!names.count(key)) {
      std::string list;
      for (const std::string &n : names) list += (list.empty() ? "" : ", ") + n;
      Location loc{graph.pointer.empty() ? "" : graph.pointer + "/schedule/tree", graph.name};
      loc.hint = "tree";
      throw UserError("no cluster named '" + key + "' (clusters: " + list + ")", loc);
    }
}

/// Every `tile` hint names the first node of a cluster (the cluster it tiles).
void check_tile_keys(const Graph &graph, const std::vector<std::vector<NodeId>> &clusters) {
  std::map<std::string, std::string> cluster_of;
  for (const auto &c : clusters)
    for (NodeId v : c) cluster_of[graph.node(v).name] = graph.node(c.front()).name;
  for (const auto &[node, sizes] : graph.schedule.tile) {
    auto it = cluster_of.find(node);
    if (it != cluster_of.end() && it->second == node) continue;
    Location loc{graph.pointer.empty() ? "" : graph.pointer + "/schedule/tile/" + node, graph.name};
    loc.hint = "tile";
    throw UserError(it == cluster_of.end()
                        ? "node '" + node + "' has no kernel of its own after simplification (a view or a folded node)"
                        : "node '" + node + "' is fused into cluster '" + it->second +
                              "': a tile hint names the cluster's first node (explain --stage clusters), or use "
                              "`fuse` groups to keep the node alone",
                    loc);
  }
}

}  // namespace

std::string printed_pass_text(const poly::PrintedPass &p, bool full) {
  using R = poly::PassRecord::Result;
  std::string head = "// after " + p.pass;
  if (p.result == R::Skipped) head += " (not run)";
  else if (p.result == R::Rejected) head += " (rejected, unchanged)";
  else if (p.unchanged) head += " (unchanged)";
  head += "\n";
  if (!full && (p.unchanged || p.result == R::Skipped)) return head;
  return head + p.text;
}

std::string cluster_stage_text(const poly::ClusterResult &c, const std::string &stage) {
  std::string out = "// cluster " + c.name + "\n";
  if (stage == "scop") out += c.scop_text;
  else if (stage == "deps") out += c.deps_text;
  else if (stage == "schedule") out += "// scheduler: " + c.algorithm + "\n" + c.schedule_yaml + "\n";
  else if (stage == "ast") out += c.ast_text;
  return out;
}

std::string cluster_printed_text(const poly::ClusterResult &c, const std::string &full_pass,
                                 const std::function<bool(poly::Level)> &keep) {
  std::string out = "// cluster " + c.name + "\n";
  for (const poly::PrintedPass &p : c.printed)
    if (!keep || keep(p.level)) out += printed_pass_text(p, p.pass == full_pass);
  return out;
}

ScheduledGraph schedule_graph(const Graph &graph, const CompileOptions &options) {
  auto t0 = Clock::now();
  ScheduledGraph out;
  out.prepared = prepare_graph(graph);
  out.plan = plan_clusters(out.prepared.graph);
  out.stage_ms["clusters"] += ms_since(t0);
  const Graph &g = out.prepared.graph;
  const auto &clusters = out.plan.fusion.clusters;
  check_tree_keys(g, clusters);
  check_tile_keys(g, clusters);
  std::vector<std::vector<NodeId>> kernels;  // the clusters, split ones cut into their pieces
  for (const auto &cluster : clusters) {
    auto compile_with = [&](const std::vector<NodeId> &nodes, const poly::PolyOptions &po) {
      const Node &first = g.node(nodes.front());
      try {
        poly::ClusterResult r = poly::compile_cluster(g, nodes, po);
        for (const auto &[stage, ms] : r.timings_ms) out.stage_ms[stage] += ms;
        return r;
      } catch (const UserError &e) {
        throw e.with({first.pointer, g.name, first.name});
      }
    };
    auto compile = [&](const std::vector<NodeId> &nodes) {
      return compile_with(nodes, cluster_options(g, g.node(nodes.front()).name, clusters.size(), options));
    };
    const poly::PolyOptions po = cluster_options(g, g.node(cluster.front()).name, clusters.size(), options);
    poly::ClusterResult result = compile_with(cluster, po);
    ClusterLayout layout = cluster_layout(g, cluster, result);
    // A schedule the user gave, or tile sizes given for this cluster, are kept as given.
    std::vector<ClusterPiece> pieces;
    if (layout.split() && po.tree.empty() && !po.tile_hint) pieces = split_cluster(g, cluster, layout, compile);
    if (pieces.empty()) {
      kernels.push_back(cluster);
      out.clusters.push_back(std::move(result));
      out.layouts.push_back(std::move(layout));
      continue;
    }
    for (ClusterPiece &p : pieces) {
      kernels.push_back(std::move(p.nodes));
      out.clusters.push_back(std::move(p.result));
      out.layouts.push_back(std::move(p.layout));
    }
  }
  out.plan.fusion.clusters = std::move(kernels);
  return out;
}

CompiledGraph compile_graph(const Graph &graph, const CompileOptions &options) {
  auto t0 = Clock::now();
  if (options.target != "cpu" && options.target != "cpu-c")
    throw UserError("target " + options.target + ": code generation is not available yet");
  ScheduledGraph s = schedule_graph(graph, options);
  CompiledGraph out;
  out.clusters = std::move(s.clusters);
  out.layouts = std::move(s.layouts);
  out.aliases = std::move(s.plan.aliases);
  out.constants = std::move(s.prepared.constants);
  out.stage_ms = std::move(s.stage_ms);
  for (const auto &r : out.clusters)
    for (const std::string &f : r.fallbacks) out.fallbacks.push_back(r.name + ": " + f);
  if (options.executable) {
    auto tc = Clock::now();
    std::vector<poly::LKernel> kernels;
    for (const auto &c : out.clusters) kernels.push_back(c.kernel);
    std::shared_ptr<cpu::CpuExecutable> exe =
        options.target == "cpu" ? std::shared_ptr<cpu::CpuExecutable>(cpu::jit_kernels(kernels))
                                : std::shared_ptr<cpu::CpuExecutable>(cpu::build_c_kernels(kernels));
    for (const auto &k : kernels) {
      cpu::KernelEntry e = exe->entry(k.name);
      ATOLL_ASSERT(e, "the backend lost kernel " + k.name);
      out.functions.push_back(e);
    }
    out.keep_alive = exe;
    out.executable = true;
    double ms = ms_since(tc);
    out.stage_ms["jit"] += ms;
    out.stage_ms["codegen"] += ms;
  }
  out.compile_ms = ms_since(t0);
  return out;
}

}  // namespace atl
