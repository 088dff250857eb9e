// Union-find of nodes with union by size and path halving.
#include "graph/fusion/node_groups.h"

#include <numeric>
#include <utility>

namespace atl::fusion {

NodeGroups::NodeGroups(std::size_t num_nodes) : parent_(num_nodes), count_(num_nodes, 1) {
  std::iota(parent_.begin(), parent_.end(), NodeId{0});
}

NodeId NodeGroups::find(NodeId v) const {
  ATOLL_ASSERT(v < parent_.size(), "node outside the union-find");
  while (parent_[v] != v) {
    parent_[v] = parent_[parent_[v]];
    v = parent_[v];
  }
  return v;
}

NodeId NodeGroups::unite(NodeId a, NodeId b) {
  a = find(a);
  b = find(b);
  if (a == b) return a;
  if (count_[a] < count_[b]) std::swap(a, b);
  parent_[b] = a;
  count_[a] += count_[b];
  return a;
}

std::vector<NodeId> NodeGroups::members(NodeId v) const {
  NodeId root = find(v);
  std::vector<NodeId> out;
  for (NodeId u = 0; u < parent_.size(); ++u)
    if (find(u) == root) out.push_back(u);
  return out;
}

std::vector<NodeId> NodeGroups::assignment() const {
  std::vector<NodeId> out(parent_.size());
  for (NodeId u = 0; u < parent_.size(); ++u) out[u] = find(u);
  return out;
}

}  // namespace atl::fusion
