// Text and Graphviz forms of a graph's clusters (explain --stage clusters).
#pragma once

#include "graph/ir/graph.h"

#include "graph/fusion/fuse_graph.h"

#include <ostream>
#include <set>

namespace atl::fusion {

/// One line per cluster ("cluster NAME: a (Op) b (Op)", named by its first
/// node), one per view ("view r (Reshape): no kernel"), then one per edge
/// between kernels ("not fused: a -> b (tensor): reason").
void print_clusters(std::ostream &os, const Graph &graph, const FusionResult &fusion, const std::set<NodeId> &no_kernel);

/// Graphviz (boost::write_graphviz): operators as boxes filled with one
/// colour per cluster (views grey and dashed), tensors on edges, edges
/// between kernels dashed.
void print_clusters_dot(std::ostream &os, const Graph &graph, const FusionResult &fusion,
                        const std::set<NodeId> &no_kernel);

}  // namespace atl::fusion
