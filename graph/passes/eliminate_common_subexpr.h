// Merges nodes that apply the same operator with the same attributes to the same inputs.
#pragma once

#include "graph/ir/graph.h"

#include "graph/passes/pass_stats.h"

namespace atl {

/// Common subexpression elimination.
///
///   before:  a = Relu(x)           after:  a = Relu(x)
///            b = Relu(x)                   y = Add(a, a)
///            y = Add(a, b)
///
/// Nodes are visited in topological order, so chains of duplicates merge in
/// one run. Of two equal nodes one survives and readers of the other's
/// outputs read the survivor's. A graph output keeps its name: when the
/// duplicate produces a graph output it is the survivor; when both do, both
/// stay ("not merged: both produce graph outputs"). Attributes compare as
/// JSON values (so {"alpha": 1} and {"alpha": 1.0} differ and are not merged).
Graph eliminate_common_subexpr(const Graph &graph, PassStats *stats = nullptr);

}  // namespace atl
