// Legality of clusters: no path leaves a cluster and re-enters it, and the clusters form a DAG.
#pragma once

#include "graph/ir/graph.h"

#include <set>
#include <string>
#include <vector>

namespace atl::fusion {

/// Why `group` cannot be one kernel, or "" when it can: a path that leaves
/// the group and comes back ("the path a -> x -> b leaves the group at x (Op)
/// and re-enters it at b"), found by a breadth-first search from the group's
/// outside successors.
///
///   a -> b -> c and a -> c:  {a, c} is illegal (b must run between them), {a, b, c} is legal.
std::string find_reentry(const Graph &graph, const std::vector<NodeId> &group);

/// With group_of[v] naming v's group, whether the graph of groups (one vertex
/// per group, an edge per tensor between groups) is acyclic; "" when it is,
/// else which groups depend on each other. Legal groups that are each convex
/// can still form a cycle together (a1 -> b1, b2 -> a2 with groups {a1, a2}
/// and {b1, b2}).
std::string find_group_cycle(const Graph &graph, const std::vector<NodeId> &group_of);

/// The groups in an order that runs producers first (topological in the graph
/// of groups); each group's nodes in graph order. Nodes in `skip` (views) are
/// left out. The graph of groups must be acyclic. Groups that read only
/// weights come first; then, depth first, the ready group whose latest
/// producer ran last (one that reads a graph input counts as having the
/// earliest producer), so that a consumer runs soon after what it reads and
/// the arena holds few tensors at once (the bands of a Winograd conv run one
/// after the other instead of all input transforms first); ties by the
/// earliest member's position in graph.order().
std::vector<std::vector<NodeId>> order_groups(const Graph &graph, const std::vector<NodeId> &group_of,
                                              const std::set<NodeId> &skip);

}  // namespace atl::fusion
