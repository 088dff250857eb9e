// The Boost.Graph adjacency list behind Graph::nodes(): for the graph passes
// that walk edges (fusion, dead-node elimination, printing). Kept out of
// graph/ir/graph.h so that the files that only read nodes and tensors do not
// compile Boost.Graph.
#pragma once

#include "graph/ir/graph.h"

#include <boost/graph/adjacency_list.hpp>

#include <type_traits>

namespace atl {

/// Vertices are Nodes (vecS: a vertex's descriptor is its index), edges
/// carry the tensor they move; bidirectional for in_edges.
struct NodeGraph : boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Node, Edge> {
  using adjacency_list::adjacency_list;
};
static_assert(std::is_same_v<NodeGraph::vertex_descriptor, NodeId>, "NodeId is a vertex index");

}  // namespace atl
