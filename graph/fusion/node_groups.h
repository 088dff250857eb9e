// Union-find over a graph's nodes: the groups that fusion grows into clusters.
#pragma once

#include "graph/ir/graph.h"

#include <cstddef>
#include <vector>

namespace atl::fusion {

/// Disjoint sets of nodes (union by size, path halving). Every node starts
/// in its own group; a group is named by its representative.
class NodeGroups {
public:
  explicit NodeGroups(std::size_t num_nodes);
  /// The representative of v's group.
  NodeId find(NodeId v) const;
  /// Merges the groups of a and b; returns the new representative.
  NodeId unite(NodeId a, NodeId b);
  bool same(NodeId a, NodeId b) const { return find(a) == find(b); }
  /// Members of v's group, in increasing NodeId order.
  std::vector<NodeId> members(NodeId v) const;
  /// Group id per node (the representative), for whole-graph checks.
  std::vector<NodeId> assignment() const;
  std::size_t size() const { return parent_.size(); }

private:
  mutable std::vector<NodeId> parent_;
  std::vector<std::size_t> count_;
};

}  // namespace atl::fusion
