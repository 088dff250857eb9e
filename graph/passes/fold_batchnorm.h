// Folds a BatchNormalization into the Conv, Gemm or MatMul that feeds it, when both have constant parameters.
#pragma once

#include "graph/ir/graph.h"

#include "graph/passes/pass_stats.h"

namespace atl {

/// BatchNormalization folding (inference form: s = scale / sqrt(var + eps),
/// shift = B - mean * s, per channel c = axis 1 of the BN input).
///
///   before:  t = Conv(x, W, b)                 after:  y = Conv(x, W', b')
///            y = BatchNormalization(t, scale, B, mean, var)
///   with W'[c, ...] = W[c, ...] * s[c] and b'[c] = b[c] * s[c] + shift[c].
///
///   Gemm:   B' scales output column n (B's column, or its row when transB),
///           C' = beta * C * s + shift (shape [N], or [M, N] when C varies
///           along M), beta becomes 1; alpha is kept.
///   MatMul: 2-D A and B only (then the BN channel is the output column);
///           becomes Gemm(A, B', shift) under the MatMul's name.
///
/// The folded node keeps the producer's name and produces the BN's output
/// tensor (so a graph output keeps its name); new weights are named
/// "<node>_bn_W", "<node>_bn_B" (or _bn_C for Gemm). Nothing is folded when
/// the producer's output has another reader or is a graph output ("not
/// folded: producer output has other uses"), or when the producer's weights
/// or the BN parameters are not all weights with inline data ("not folded:
/// weights are run-time values"): the per-channel scale-and-shift epilogue
/// for run-time weights is fusion's job (graph/fusion), not a rewrite here.
/// Old weights that become unused are left for eliminate_dead_nodes.
Graph fold_batchnorm(const Graph &graph, PassStats *stats = nullptr);

}  // namespace atl
