// Removes nodes whose outputs reach no graph output, and constant weights nothing reads.
#pragma once

#include "graph/ir/graph.h"

#include "graph/passes/pass_stats.h"

namespace atl {

/// Dead node elimination.
///
///   before:  a = Relu(x)           after:  a = Relu(x)
///            d = Exp(x)     (dead)         y = Neg(a)
///            e = Neg(d)     (dead)
///            y = Neg(a)            outputs: y
///
/// Live nodes are those reached from the producers of the graph outputs by
/// a breadth-first search on the reversed graph (Boost.Graph). A live node
/// keeps all its outputs, used or not. Weights with inline data that no live
/// node reads and that are not graph outputs are dropped too (they are
/// constants nobody supplies); run-time weights and inputs always stay.
Graph eliminate_dead_nodes(const Graph &graph, PassStats *stats = nullptr);

}  // namespace atl
