// Runs a 1x1 Conv -> depthwise Conv -> 1x1 Conv chain (MobileNet's inverted residual) in bands of output rows.
#pragma once

#include "graph/ir/graph.h"

#include "graph/passes/pass_stats.h"

#include <cstdint>

namespace atl {

/// Limits of band_depthwise_chain.
struct BandChainOptions {
  /// A band's expanded tensors (the depthwise Conv's input and output) take
  /// at most this many bytes together; at least as many rows as the
  /// depthwise kernel a band. A chain that fits in one band is left alone.
  std::int64_t band_bytes = std::int64_t{2} << 20;
};

/// Row bands of an expand -> depthwise -> project chain.
///
///   before:  e = Conv(x, We) 1x1;  [row-local ops];  d = Conv(e', Wd) depthwise KxK, stride 1;
///            [row-local ops];  p = Conv(d', Wp) 1x1;  [row-local ops] -> y
///   after, per band k of y's rows [a, b):
///            e_k = Compute(x, We)  "e_k(n, m, h, w) +=! x(n, c, lo + h, w) * We(m, c, 0, 0)"  (rows [lo, hi) that
///                                   the depthwise window of [a, b) reads, halo included)
///            [the row-local ops on e_k];  d_k = Conv(e_k', Wd) with the pads only at the tensor's ends;
///            [the row-local ops];  p_k = Conv(d_k', Wp);  [the row-local ops] -> y_k
///   and      y = Compute(y_0, y_1, ...)  "y(n, c, a + h, w) = y_k(n, c, h, w)", one statement per band.
///
/// A row-local op is elementwise on the chain's tensor alone (Relu, Clip,
/// BatchNormalization, ...: its other inputs are weights of rank <= 1).
/// Every tensor inside the chain has one consumer and is no graph output.
/// The expanded tensors are the widest of the block (6x its input in
/// MobileNetV2): with bands, one band of them is live at a time instead of
/// two whole tensors, at the price of recomputing the expand Conv on the
/// halo rows (K - 1 rows a band) and one copy of the (narrow) output. This
/// is fusion at band granularity across three heavy operators, so
/// compile_graph runs it only when the graph's `fuse` hint allows fusion.
Graph band_depthwise_chain(const Graph &graph, PassStats *stats = nullptr, const BandChainOptions &options = {});

}  // namespace atl
