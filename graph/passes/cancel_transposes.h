// Cancels or composes Transpose pairs and Reshape pairs, and drops Reshapes that keep the shape.
#pragma once

#include "graph/ir/graph.h"

#include "graph/passes/pass_stats.h"

namespace atl {

/// Transpose and Reshape cancellation.
///
///   t = Transpose(x, p); y = Transpose(t, q)   ->  y = x           (q after p is the identity)
///                                               ->  y = Transpose(x, r), r[i] = p[q[i]]  (otherwise)
///   t = Reshape(x); y = Reshape(t, s)          ->  y = Reshape(x, s')
///   y = Reshape(x) with y's shape = x's shape  ->  y = x
///   y = Transpose(x, identity perm)            ->  y = x
///
/// The outer node is rewritten to read x directly; the inner one stays while
/// something else reads it (eliminate_dead_nodes removes it otherwise).
/// "y = x" renames every reader of y to read x; when y is a graph output it
/// keeps its name: the cancelled Transpose pair becomes Identity(x), and a
/// Reshape that keeps the shape stays. s' is the outer Reshape's own shape
/// attribute when it has no 0 entry (a 0 copies an input dim, which x may
/// not share), else the outer output's concrete shape; with neither, the
/// pair stays.
Graph cancel_transposes(const Graph &graph, PassStats *stats = nullptr);

}  // namespace atl
