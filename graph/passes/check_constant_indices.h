// Checks that indirect subscripts (Gather's indices, `data(idx(i), j)`) whose index tensors are compile-time constants stay in bounds.
#pragma once

#include "graph/ir/graph.h"

namespace atl {

/// Evaluates, on zero data, every node whose indirect subscripts read only
/// constant tensors (inline `data`), so that an index outside its axis is a
/// compile error naming the graph and node (UserError) rather than an
/// out-of-bounds read at run time. Nodes with symbolic shapes, or whose
/// tensors exceed `max_elements` in all, are left to the guarded loads of
/// the generated code (an out-of-range run-time index reads 0 there).
void check_constant_indices(const Graph &graph, std::int64_t max_elements = std::int64_t{1} << 22);

}  // namespace atl
