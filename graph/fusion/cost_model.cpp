// Fusion rules by pattern kind, the heavy-operator and statement caps, and the bytes a cluster saves.
#include "graph/fusion/cost_model.h"

#include "graph/fusion/node_facts.h"
#include "graph/ir/node_graph.h"

#include <deque>
#include <map>
#include <optional>
#include <set>

namespace atl::fusion {

namespace {

/// Nodes of `in` reachable from `from` through nodes of `in` (from included).
std::set<NodeId> reachable_within(const Graph &graph, NodeId from, const std::set<NodeId> &in) {
  const NodeGraph &g = graph.nodes();
  std::set<NodeId> seen{from};
  std::deque<NodeId> queue{from};
  while (!queue.empty()) {
    NodeId v = queue.front();
    queue.pop_front();
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
      NodeId w = boost::target(*e, g);
      if (in.count(w) && seen.insert(w).second) queue.push_back(w);
    }
  }
  return seen;
}

/// Whether every tensor `n` reads that a node makes is made inside `in`
/// (graph inputs and weights are made by no node).
bool reads_only_from(const Graph &graph, NodeId n, const std::set<NodeId> &in) {
  for (const std::string &t : graph.node(n).inputs) {
    if (t.empty()) continue;
    std::optional<NodeId> p = graph.producer(t);
    if (p && !in.count(*p)) return false;
  }
  return true;
}

/// Traffic saved: each read of a tensor made inside the cluster by a node
/// inside it, plus its write when no one outside (and no graph output) reads it.
std::int64_t bytes_saved(const Graph &graph, const std::set<NodeId> &in) {
  const NodeGraph &g = graph.nodes();
  std::set<std::string> outputs(graph.outputs.begin(), graph.outputs.end());
  std::map<std::string, std::pair<int, int>> reads;  // tensor -> (inside, outside)
  for (NodeId v : in)
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
      auto &r = reads[g[*e].tensor];
      (in.count(boost::target(*e, g)) ? r.first : r.second)++;
    }
  std::int64_t saved = 0;
  for (const auto &[t, r] : reads) {
    if (r.first == 0) continue;
    std::int64_t b = tensor_bytes(graph, t);
    saved += b * r.first;
    if (r.second == 0 && !outputs.count(t)) saved += b;
  }
  return saved;
}

}  // namespace

ClusterVerdict judge_cluster(const Graph &graph, const std::vector<NodeId> &nodes, const FusionOptions &options) {
  ClusterVerdict v;
  std::set<NodeId> in(nodes.begin(), nodes.end());
  for (NodeId n : nodes) v.statements += node_statements(graph, n);
  if (nodes.size() <= 1) {
    v.ok = true;
    return v;
  }
  std::map<NodeId, PatternKind> kind;  // node_kind parses a Compute's text: once per node
  for (NodeId n : nodes) kind[n] = node_kind(graph, n);
  std::vector<NodeId> heavy;
  for (NodeId n : nodes) {
    PatternKind k = kind[n];
    if (k == PatternKind::Opaque) {
      v.reason = node_label(graph, n) + " is opaque: it is not fused with other operators";
      return v;
    }
    if (is_heavy(k)) heavy.push_back(n);
  }
  if (static_cast<int>(heavy.size()) > options.max_heavy) {
    v.reason = "would put " + std::to_string(heavy.size()) + " heavy operators in one kernel (";
    for (std::size_t i = 0; i < heavy.size(); ++i) v.reason += (i ? ", " : "") + node_label(graph, heavy[i]);
    v.reason += "); the limit is " + std::to_string(options.max_heavy);
    return v;
  }
  if (!heavy.empty()) {
    NodeId h = heavy.front();
    PatternKind hk = kind[h];
    std::set<NodeId> after = reachable_within(graph, h, in);
    if (hk == PatternKind::OutFusable && !options.fuse_epilogues) {
      NodeId other = nodes.front() == h ? nodes[1] : nodes.front();
      v.reason = "the contraction " + node_label(graph, h) + " runs alone: with " + node_label(graph, other) +
                 " in its kernel it was measured slower (FusionOptions::fuse_epilogues)";
      return v;
    }
    for (NodeId n : nodes) {
      if (n == h) continue;
      PatternKind k = kind[n];
      if (k == PatternKind::Injective && !(hk == PatternKind::OutFusable && after.count(n))) {
        v.reason = node_label(graph, n) + " is injective (data movement), not an elementwise " +
                   (after.count(n) ? "epilogue of " : "producer of ") + node_label(graph, h);
        return v;
      }
      if (k == PatternKind::Injective && !reads_only_from(graph, n, in)) {
        v.reason = node_label(graph, n) + " moves data of another kernel: as an epilogue of " + node_label(graph, h) +
                   " it would hold that kernel's inputs until the other one has run";
        return v;
      }
      if (hk == PatternKind::OutFusable && !after.count(n)) {
        v.reason = node_label(graph, n) + " feeds the contraction " + node_label(graph, h) +
                   ": producers of a contraction stay separate";
        return v;
      }
    }
  }
  // Two data movements chained in one kernel: the second reorders what the
  // first wrote, and one loop order cannot suit both (the join of a Winograd
  // conv's row bands fused with the blocked-to-NCHW conversion after its
  // BatchNormalization was measured slower than the two kernels apart).
  for (NodeId n : nodes) {
    if (kind[n] != PatternKind::Injective) continue;
    for (NodeId m : reachable_within(graph, n, in))
      if (m != n && kind[m] == PatternKind::Injective) {
        v.reason = node_label(graph, n) + " and " + node_label(graph, m) +
                   " both move data: chained in one kernel, one loop order cannot suit both layouts";
        return v;
      }
  }
  if (v.statements > options.max_statements) {
    v.reason = "the cluster would have " + std::to_string(v.statements) + " statements (limit " +
               std::to_string(options.max_statements) + ")";
    return v;
  }
  v.bytes_saved = bytes_saved(graph, in);
  if (v.bytes_saved == 0) {
    v.reason = "no intermediate tensor would stay inside the kernel";
    return v;
  }
  v.ok = true;
  return v;
}

}  // namespace atl::fusion
