// Evaluates nodes whose inputs are all constants and replaces them by weights with inline data.
#pragma once

#include "graph/ir/graph.h"

#include "graph/passes/pass_stats.h"

#include <cstdint>

namespace atl {

/// Constant folding through the operator registry's Compute definitions.
///
///   before:  w1 = weight [4] data(...)      after:  t = weight [4] data(w1 + w2)
///            w2 = weight [4] data(...)              y = Mul(x, t)
///            t  = Add(w1, w2)
///            y  = Mul(x, t)
///
/// A node is folded when every input it reads is a weight with inline data
/// (or a result folded before it), its output shapes are concrete, each
/// output holds at most `max_elements` elements ("not folded: result too
/// large" otherwise), and none of its outputs is a graph output (a graph
/// output stays produced by a node, so it keeps its name and the compiled
/// graph needs no constant copy; its constant inputs are folded). The folded
/// value is the tensor the node's registry definition computes
/// (evaluate_node), rounded to the output dtype, under the output's name.
/// Weights that become unused are left for eliminate_dead_nodes.
Graph fold_constants(const Graph &graph, PassStats *stats = nullptr, std::int64_t max_elements = 1 << 20);

}  // namespace atl
