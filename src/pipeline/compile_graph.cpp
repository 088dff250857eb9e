// Prepares a graph for compilation (simplification) and splits it into
// clusters (fusion and the `fuse` hint, views); compile_clusters.cpp takes it on.
#include "src/pipeline/compile_graph.h"

#include "src/pipeline/npu_codegen.h"

#include "graph/fusion/check_legality.h"

#include <set>

namespace atl {

namespace {

UserError hint_error(const Graph &g, const std::string &hint, const std::string &why) {
  Location loc{g.pointer.empty() ? "" : g.pointer + "/schedule/" + hint, g.name};
  loc.hint = hint;
  return UserError(why, loc);
}

/// The clusters of explicit `fuse` groups, checked.
fusion::FusionResult explicit_groups(const Graph &graph, const std::set<NodeId> &no_kernel) {
  std::map<std::string, NodeId> by_name;
  for (NodeId v = 0; v < graph.num_nodes(); ++v) by_name[graph.node(v).name] = v;
  std::vector<NodeId> group_of(graph.num_nodes());
  for (NodeId v = 0; v < graph.num_nodes(); ++v) group_of[v] = v;
  std::set<NodeId> seen;
  std::vector<std::vector<NodeId>> groups;
  std::size_t index = 0;
  for (const std::vector<std::string> &group : graph.schedule.fuse.groups) {
    std::string where = "fuse group " + std::to_string(index++);
    if (group.empty()) throw hint_error(graph, "fuse", where + ": expected a non-empty list of node names");
    std::vector<NodeId> members;
    for (const std::string &name : group) {
      auto it = by_name.find(name);
      if (it == by_name.end()) throw hint_error(graph, "fuse", where + ": unknown node '" + name + "'");
      if (!seen.insert(it->second).second)
        throw hint_error(graph, "fuse", where + ": node '" + name + "' is in more than one group");
      if (!no_kernel.count(it->second)) members.push_back(it->second);
    }
    for (NodeId v : members) group_of[v] = members.empty() ? v : members.front();
    if (members.size() > 1) {
      std::string text;
      for (NodeId v : members) text += (text.empty() ? "" : ", ") + graph.node(v).name;
      if (std::string r = fusion::find_reentry(graph, members); !r.empty())
        throw hint_error(graph, "fuse", where + " [" + text + "] cannot be one kernel: " + r);
    }
  }
  if (std::string r = fusion::find_group_cycle(graph, group_of); !r.empty())
    throw hint_error(graph, "fuse", "the fuse groups cannot run in any order: " + r);
  return fusion::clusters_from_groups(graph, group_of, no_kernel, "not in one `fuse` group");
}

/// Why the simplified graph `s` cannot replace `graph` for the runner, or "".
std::string replacement_problem(const Graph &graph, const Graph &s) {
  if (s.inputs != graph.inputs || s.outputs != graph.outputs) return "inputs or outputs changed";
  for (const std::string &o : s.outputs) {
    if (!s.producer(o)) return "output " + o + " is no longer computed";
    if (s.tensor(o).type.str() != graph.tensor(o).type.str()) return "output " + o + " changed type";
  }
  std::set<std::string> declared(graph.weights.begin(), graph.weights.end());
  for (const std::string &w : s.weights)
    if (!declared.count(w) && !s.tensor(w).data) return "weight " + w + " has no value";
  std::set<NodeId> no_kernel;
  for (const memory::TensorAlias &a : memory::plan_views(s, &no_kernel))
    if (!graph.has_tensor(a.base) || graph.tensor(a.base).type.str() != s.tensor(a.base).type.str())
      return "view base " + a.base + " is new";
  return "";
}

/// `s`'s `fuse` groups: each original group's members that are still nodes
/// of `s` under their names (a node a pass rewrote in place keeps its name;
/// one folded into another is gone), empty groups dropped. Nodes the passes
/// made run as clusters of their own.
FuseHint groups_on_simplified(const FuseHint &fuse, const Graph &s) {
  std::set<std::string> names;
  for (NodeId v = 0; v < s.num_nodes(); ++v) names.insert(s.node(v).name);
  FuseHint out;
  out.mode = FuseHint::Mode::Groups;
  for (const std::vector<std::string> &group : fuse.groups) {
    std::vector<std::string> kept;
    for (const std::string &name : group)
      if (names.count(name)) kept.push_back(name);
    if (!kept.empty()) out.groups.push_back(std::move(kept));
  }
  return out;
}

/// Whether explicit_groups accepts `g`'s groups; the reason when not.
std::string explicit_groups_problem(const Graph &g) {
  std::set<NodeId> no_kernel;
  memory::plan_views(g, &no_kernel);
  try {
    explicit_groups(g, no_kernel);
  } catch (const UserError &e) {
    return e.what();
  }
  return "";
}

}  // namespace

PreparedGraph prepare_graph(const Graph &graph, const std::string &target) {
  PreparedGraph p;
  p.graph = graph;
  const bool explicit_fuse = graph.schedule.fuse.mode == FuseHint::Mode::Groups;
  // Groups that do not hold on the original graph are the caller's error:
  // plan_clusters reports it on the graph as written.
  if (explicit_fuse && !explicit_groups_problem(graph).empty()) {
    p.skipped = "the explicit `fuse` groups are refused";
    return p;
  }
  if (graph.schedule.tree.given) {
    p.skipped = "the `tree` hint is written for the original nodes";
    return p;
  }
  Graph s;
  try {
    SimplifyOptions so;
    so.name_inputs = true;
    so.fold_pad = true;
    so.block_conv_layout = true;
    so.batchnorm_scale_shift = true;
    so.split_compute_node = true;
    so.transpose_contraction_operand = true;
    // Panels are read a vector at a time: not under `vectorize: false`.
    so.gemm_weight_panel = graph.schedule.vectorize.value_or(true) ? poly::gemm_tile_columns(poly::host_target()) : 0;
    so.block_conv.winograd = true;
    so.block_conv.block_nchw_inputs = true;
    so.block_conv.winograd_panel = so.gemm_weight_panel;
    // Bands across three convolutions are fusion: not under `fuse: none`.
    so.band_depthwise_chain = graph.schedule.fuse.mode != FuseHint::Mode::None;
    // Explicit groups name the original nodes: no pass that replaces a node
    // by several (bands, parts of a Compute node, Winograd's transforms and
    // GEMMs) under other names.
    if (explicit_fuse) so.band_depthwise_chain = so.split_compute_node = so.block_conv.winograd = false;
    if (is_npu_target(target)) {
      so.gemm_weight_panel = 0;
      so.block_conv_layout = so.band_depthwise_chain = so.transpose_contraction_operand = false;
    }
    s = simplify_graph(graph, so, &p.summary);
  } catch (const UserError &e) {
    p.skipped = std::string("simplification failed: ") + e.what();
    return p;
  }
  std::int64_t changes = 0;
  for (const auto &[name, stats] : p.summary.passes) changes += stats.changes;
  if (changes == 0) return p;
  if (std::string why = replacement_problem(graph, s); !why.empty()) {
    p.skipped = "simplified graph not used: " + why;
    return p;
  }
  if (explicit_fuse) {
    s.schedule.fuse = groups_on_simplified(graph.schedule.fuse, s);
    if (std::string why = explicit_groups_problem(s); !why.empty()) {
      p.skipped = "the explicit `fuse` groups do not hold on the simplified graph (" + why + ")";
      return p;
    }
  }
  std::set<std::string> declared(graph.weights.begin(), graph.weights.end());
  for (const std::string &w : s.weights) {
    const TensorDecl &d = s.tensor(w);
    if (declared.count(w)) continue;
    Tensor t(d.type.dtype, concrete_shape(d.type.shape));
    t.data = *d.data;
    p.constants.emplace(w, std::move(t));
  }
  p.graph = std::move(s);
  p.simplified = true;
  return p;
}

ClusterPlan plan_clusters(const Graph &graph) {
  ClusterPlan p;
  p.aliases = memory::plan_views(graph, &p.no_kernel);
  const FuseHint &fuse = graph.schedule.fuse;
  if (fuse.mode == FuseHint::Mode::Groups) {
    p.fusion = explicit_groups(graph, p.no_kernel);
  } else if (fuse.mode == FuseHint::Mode::None) {
    std::vector<NodeId> alone(graph.num_nodes());
    for (NodeId v = 0; v < graph.num_nodes(); ++v) alone[v] = v;
    p.fusion = fusion::clusters_from_groups(graph, alone, p.no_kernel, "fuse: none");
  } else {
    p.fusion = fusion::fuse_graph(graph, p.no_kernel);
  }
  return p;
}

std::vector<std::vector<NodeId>> graph_clusters(const Graph &graph) {
  ClusterPlan plan = plan_clusters(graph);
  std::vector<NodeId> group_of(graph.num_nodes());
  for (NodeId v = 0; v < graph.num_nodes(); ++v) group_of[v] = v;
  for (const auto &c : plan.fusion.clusters)
    for (NodeId v : c) group_of[v] = c.front();
  return fusion::order_groups(graph, group_of, {});
}

}  // namespace atl
