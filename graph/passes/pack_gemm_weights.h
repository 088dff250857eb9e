// Lays the weight operand of a MatMul out in column panels [N/P, K, P], written once by a weight-phase kernel.
#pragma once

#include "graph/ir/graph.h"

#include "graph/passes/pass_stats.h"

namespace atl {

/// Packed GEMM weights.
///
///   before:  y = MatMul(x, W)                                  W: [K, N], a weight (or y = Gemm(x, W, C))
///   after:   Wp = Compute(W)     "Wp(p_, k_, l_) = W(k_, P * p_ + l_)"     Wp: [N/P, K, P]
///            y  = Compute(x, Wp) "y(.., m_, n_) +=! x(.., m_, k_) * Wp(floor(n_ / P), k_, n_ % P)"
///
/// P is the CPU register tile's width (tile_for_cpu: two vectors with 16
/// registers, four with 32), so the micro-kernel reads each panel of the
/// weight in order, K rows of P contiguous columns, with no per-call copy:
/// Wp reads only weights, so the runtime computes it once per weight
/// binding (the weight phase, run_compiled), as onnxruntime prepacks its
/// GEMM weights at session creation. A weight shared by several MatMuls
/// gets one packed copy. The product keeps the MatMul's name and output.
///
/// Gemm (A B, A^T, B^T, alpha, beta, C) likewise: the product reads the
/// panels of B (of B^T with transB: `Wp(p_, k_, l_) = W(P * p_ + l_, k_)`),
/// and alpha, beta and C become an elementwise Compute that writes the Gemm's
/// output (`y(m_, n_) = alpha * y_mm(m_, n_) + beta * C(..)`), which fusion
/// joins to the product's kernel as its epilogue.
///
/// Only f32, W of rank 2 (a weight, a folded constant, or computed from
/// weights alone), concrete K and N with N larger than P (one panel is W's
/// own layout) and a multiple of P, unless the product has at most 64 rows
/// (then the last panel is zero-padded); the left operand of any rank >= 2; no
/// `tile` hint for the node whose column tiles are not whole panels.
/// compile_graph turns the pass off under `vectorize: false`.
/// Counts: "matmuls reading packed weights", "weights packed", and
/// "not packed: ..." notes. `panel` = 0 turns the pass into a no-op.
Graph pack_gemm_weights(const Graph &graph, PassStats *stats = nullptr, int panel = 16);

}  // namespace atl
