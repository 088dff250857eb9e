// Immediate post-dominators of a graph's nodes (Boost.Graph Lengauer-Tarjan on the reversed graph).
#pragma once

#include "graph/ir/graph.h"

#include <optional>
#include <vector>

namespace atl::fusion {

/// The immediate post-dominator of every node (indexed by NodeId): the
/// nearest node that every path from the node to the graph's end passes
/// through, or std::nullopt when only the end does (a node producing a graph
/// output, a node without readers, a node whose readers lead to different
/// outputs). Computed with boost::lengauer_tarjan_dominator_tree on the
/// reversed graph with a virtual sink that feeds every such end node.
///
///   a -> b -> d,  a -> c -> d,  d -> e (output)
///   ipdom: a: d, b: d, c: d, d: e, e: none
std::vector<std::optional<NodeId>> immediate_post_dominators(const Graph &graph);

}  // namespace atl::fusion
