// Folds a zero constant Pad of the spatial axes into the padding of the Conv that reads it.
#pragma once

#include "graph/ir/graph.h"

#include "graph/passes/pass_stats.h"

namespace atl {

/// Pad folding.
///
///   before:  p = Pad(x, pads=[0,0,1,2, 0,0,1,2])      after:  y = Conv(x, W, pads=[1+a, 2+b, 1+c, 2+d])
///            y = Conv(p, W, pads=[a,b, c,d])
///
/// Folded when the Pad is in constant mode with value 0, pads only spatial
/// axes (not batch or channel) by non-negative amounts, its output is read by
/// exactly one node, a Conv (data input, not ConvTranspose) with auto_pad
/// NOTSET, and is not a graph output. The Conv keeps its name and output;
/// the Pad node is dropped. Otherwise the Pad stays ("not folded: ..." notes).
Graph fold_pad(const Graph &graph, PassStats *stats = nullptr);

}  // namespace atl
