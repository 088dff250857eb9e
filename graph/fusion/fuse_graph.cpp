// The fusion driver: post-dominator merges, then edge merges to a fixed point, then the unfused-edge report.
#include "graph/fusion/fuse_graph.h"

#include "graph/fusion/check_legality.h"
#include "graph/fusion/node_facts.h"
#include "graph/fusion/node_groups.h"
#include "graph/fusion/post_dominators.h"
#include "graph/ir/node_graph.h"

#include <deque>

namespace atl::fusion {

namespace {

/// Nodes reachable from `from` (forward) or reaching it (backward), `from` included.
std::vector<bool> reach(const Graph &graph, NodeId from, bool forward) {
  const NodeGraph &g = graph.nodes();
  std::vector<bool> seen(graph.num_nodes(), false);
  std::deque<NodeId> queue{from};
  seen[from] = true;
  while (!queue.empty()) {
    NodeId v = queue.front();
    queue.pop_front();
    auto visit = [&](NodeId w) {
      if (!seen[w]) {
        seen[w] = true;
        queue.push_back(w);
      }
    };
    if (forward)
      for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) visit(boost::target(*e, g));
    else
      for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) visit(boost::source(*e, g));
  }
  return seen;
}

/// Union of the groups of `nodes`.
std::vector<NodeId> union_of(const NodeGroups &groups, const std::vector<NodeId> &nodes) {
  std::set<NodeId> roots;
  for (NodeId v : nodes) roots.insert(groups.find(v));
  std::vector<NodeId> out;
  for (NodeId v = 0; v < groups.size(); ++v)
    if (roots.count(groups.find(v))) out.push_back(v);
  return out;
}

/// Why the union of the groups of `nodes` may not be one cluster ("" = it may).
std::string why_not(const Graph &graph, const NodeGroups &groups, const std::vector<NodeId> &nodes,
                    const FusionOptions &options) {
  std::vector<NodeId> merged = union_of(groups, nodes);
  ClusterVerdict verdict = judge_cluster(graph, merged, options);
  if (!verdict.ok) return verdict.reason;
  if (std::string r = find_reentry(graph, merged); !r.empty()) return "illegal: " + r;
  std::vector<NodeId> group_of = groups.assignment();
  for (NodeId v : merged) group_of[v] = merged.front();
  if (std::string r = find_group_cycle(graph, group_of); !r.empty()) return "illegal: " + r;
  return "";
}

/// Merges the groups of `nodes` when allowed; true when it did.
bool try_merge(const Graph &graph, NodeGroups &groups, const std::vector<NodeId> &nodes, const FusionOptions &options) {
  std::set<NodeId> roots;
  for (NodeId v : nodes) roots.insert(groups.find(v));
  if (roots.size() < 2 || !why_not(graph, groups, nodes, options).empty()) return false;
  for (NodeId v : nodes) groups.unite(nodes.front(), v);
  return true;
}

/// Every edge between different groups, with the reason `reason_of` gives.
template <class Reason>
std::vector<UnfusedEdge> unfused_edges(const Graph &graph, const std::vector<NodeId> &group_of, Reason reason_of) {
  const NodeGraph &g = graph.nodes();
  std::vector<UnfusedEdge> out;
  for (NodeId u : graph.order())
    for (auto [e, end] = boost::out_edges(u, g); e != end; ++e) {
      NodeId v = boost::target(*e, g);
      if (group_of[u] == group_of[v]) continue;
      bool dup = false;  // one entry per (from, to, tensor)
      for (const UnfusedEdge &x : out) dup = dup || (x.from == u && x.to == v && x.tensor == g[*e].tensor);
      if (!dup) out.push_back({u, v, g[*e].tensor, reason_of(u, v)});
    }
  return out;
}

std::string view_reason(const Graph &graph, const std::set<NodeId> &no_kernel, NodeId u, NodeId v) {
  NodeId w = no_kernel.count(u) ? u : v;
  return node_label(graph, w) + " is a view: no kernel";
}

}  // namespace

FusionResult fuse_graph(const Graph &graph, const std::set<NodeId> &no_kernel, const FusionOptions &options) {
  const NodeGraph &g = graph.nodes();
  NodeGroups groups(graph.num_nodes());
  std::vector<std::optional<NodeId>> ipdom = immediate_post_dominators(graph);
  // Along post-dominators: u with every node on the paths from u to ipdom(u).
  for (NodeId u : graph.order()) {
    if (no_kernel.count(u) || !ipdom[u] || no_kernel.count(*ipdom[u])) continue;
    NodeId d = *ipdom[u];
    std::vector<bool> from_u = reach(graph, u, true), to_d = reach(graph, d, false);
    std::vector<NodeId> span;
    bool through_view = false;
    for (NodeId x = 0; x < graph.num_nodes(); ++x)
      if (from_u[x] && to_d[x]) {
        span.push_back(x);
        through_view = through_view || no_kernel.count(x);
      }
    if (!through_view) try_merge(graph, groups, span, options);
  }
  // Every remaining edge, to a fixed point.
  for (bool changed = true; changed;) {
    changed = false;
    for (NodeId u : graph.order())
      for (auto [e, end] = boost::out_edges(u, g); e != end; ++e) {
        NodeId v = boost::target(*e, g);
        if (no_kernel.count(u) || no_kernel.count(v) || groups.same(u, v)) continue;
        changed = try_merge(graph, groups, {u, v}, options) || changed;
      }
  }
  FusionResult out;
  std::vector<NodeId> group_of = groups.assignment();
  out.clusters = order_groups(graph, group_of, no_kernel);
  out.unfused = unfused_edges(graph, group_of, [&](NodeId u, NodeId v) {
    if (no_kernel.count(u) || no_kernel.count(v)) return view_reason(graph, no_kernel, u, v);
    std::string r = why_not(graph, groups, {u, v}, options);
    return r.empty() ? std::string("not chosen") : r;
  });
  return out;
}

FusionResult clusters_from_groups(const Graph &graph, const std::vector<NodeId> &group_of,
                                  const std::set<NodeId> &no_kernel, const std::string &reason) {
  ATOLL_ASSERT(group_of.size() == graph.num_nodes(), "clusters_from_groups: one group id per node");
  std::vector<NodeId> ids = group_of;
  // Views stay alone whatever group names them.
  for (NodeId v : no_kernel) ids[v] = graph.num_nodes() + v;
  FusionResult out;
  out.clusters = order_groups(graph, ids, no_kernel);
  out.unfused = unfused_edges(graph, ids, [&](NodeId u, NodeId v) {
    return no_kernel.count(u) || no_kernel.count(v) ? view_reason(graph, no_kernel, u, v) : reason;
  });
  return out;
}

}  // namespace atl::fusion
