// Fusion driver: groups a graph's nodes into clusters (kernels), and says why each remaining edge was not fused.
#pragma once

#include "graph/ir/graph.h"

#include "graph/fusion/cost_model.h"

#include <set>
#include <string>
#include <vector>

namespace atl::fusion {

/// A tensor edge between two nodes that run in different kernels.
struct UnfusedEdge {
  NodeId from = 0, to = 0;
  std::string tensor;
  std::string reason;
};

/// The clusters of a graph and the edges between them.
struct FusionResult {
  /// Clusters in call order (producers first), each one's nodes in graph
  /// order; nodes without a kernel (views) are in none.
  std::vector<std::vector<NodeId>> clusters;
  /// Every edge whose ends are in different clusters (or at a view), with why.
  std::vector<UnfusedEdge> unfused;
};

/// Automatic fusion, as TVM's fuse_ops does it: every node starts alone
/// (union-find); in graph order each node u is merged with everything on the
/// paths to its immediate post-dominator d (post_dominators.h) when the
/// cost model accepts the union (chains, diamonds, epilogues into a
/// contraction, elementwise producers into a reduction); then every edge
/// still between two groups is tried once more, to a fixed point (multi-
/// output clusters, tensors that are also graph outputs). A merge is taken
/// only when the union is legal (check_legality.h) and judge_cluster accepts
/// it. Nodes in `no_kernel` are never fused: an edge through a view is an
/// edge between kernels.
FusionResult fuse_graph(const Graph &graph, const std::set<NodeId> &no_kernel, const FusionOptions &options = {});

/// Clusters from groups the caller chose (`fuse` hint, tests): nodes in no
/// group run alone; `group_of[v]` is v's group id. The groups must be legal
/// (find_reentry, find_group_cycle). Unfused edges get `reason`.
FusionResult clusters_from_groups(const Graph &graph, const std::vector<NodeId> &group_of,
                                  const std::set<NodeId> &no_kernel, const std::string &reason);

}  // namespace atl::fusion
