// Gives a contraction's operand (Compute, or a Gemm's run-time B under transB) a transposed copy when the output's innermost index is not its last subscript.
#pragma once

#include "graph/ir/graph.h"

#include "graph/passes/pass_stats.h"

namespace atl {

/// A contraction `T(..., j) +=! A(...) * B(..., j, ..., d)` in a Compute
/// node, where the output's last index j is a subscript of B (and not of A)
/// and B's last subscript is a reduction index d, reads B through a copy
/// with j and d swapped:
///
///   before:  s = Compute(q, k)     "s(h, i, j) +=! q(h, i, d) * k(h, j, d)"
///   after:   k_t = Compute(k)      "k_t(i0_, i2_, i1_) = k(i0_, i1_, i2_)"
///            s = Compute(q, k_t)   "s(h, i, j) +=! q(h, i, d) * k_t(h, d, j)"
///
/// The CPU schedule vectorizes a contraction along the output's last index
/// and keeps a register tile of T; with B's rows along d, each vector of B is
/// eight strided loads. A transposed copy of B, made once, lets every
/// vector of B be one contiguous load, which costs far less than the
/// strided loads it replaces (attention's QK^T written as one Compute is
/// the case this was written for). A copy of a weight runs once, in the
/// weight phase.
///
/// Rewritten only when: B is an input of the node, concrete f32, read once
/// in the node, with distinct plain indices as subscripts (no guard, no
/// affine subscript); j spans at least 8 elements; and each element of B is
/// used at least 4 times (the extents of T's indices that B lacks multiply
/// to 4 or more) unless B is a weight.
///
/// The same for a Gemm with transB = 1 whose B is a run-time value (not a
/// weight: pack_gemm_weights lays those out once): B goes through a
/// Transpose and transB becomes 0, when B has 8 or more rows and A's rows
/// (M) are 4 or more (a PyTorch-style Linear on a run-time B: the GEMM
/// tiler then reads B along the vector instead of across it).
/// Counts "contraction operands transposed".
Graph transpose_contraction_operand(const Graph &graph, PassStats *stats = nullptr);

}  // namespace atl
