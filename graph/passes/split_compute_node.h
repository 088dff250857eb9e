// Splits a Compute node of several contractions (or a contraction and a reduction) into one node per contraction or run of reductions.
#pragma once

#include "graph/ir/graph.h"

#include "graph/passes/pass_stats.h"

namespace atl {

/// A Compute node whose statements hold a contraction (`T(...) +=!
/// A(...) * B(...)`, either factor possibly a guard(...) read) and another
/// contraction or a reduction (any other `op=!` statement) becomes several
/// Compute nodes, in statement order: a part ends before a contraction that
/// follows a contraction or reduction of its own, and before a reduction
/// that follows a contraction of its own, so each part holds one
/// contraction or a run of reductions (a Softmax's or a LayerNorm's), with
/// the statements after it. A temporary that a later part reads becomes a
/// tensor between the nodes.
///
///   before:  y = Compute(x, We, Wd, Wp)
///              "e(c, h, w) +=! x(0, k, h, w) * We(c, k, 0, 0)
///               ea(c, h, w) = min(max(e(c, h, w), 0), 6)
///               d(c, h, w) +=! guard(ea(c, h + kh - 1, w + kw - 1), 0) * Wd(c, 0, kh, kw) where ...
///               y(0, o, h, w) +=! d(c, h, w) * Wp(o, c, 0, 0)"
///   after:   ea = Compute(x, We)   "e(...) +=! ...  ea(...) = ..."
///            d = Compute(ea, Wd)   "d(...) +=! ..."
///            y = Compute(d, Wp)    "y(...) +=! ..."
///
/// One schedule for all of a node's contractions is one band for all of them:
/// isl fuses and skews them (the depthwise's rows along the expand's), and
/// neither gets a register tile or vector code (MobileNetV2's block and
/// attention written as one node each ran many times slower than as one
/// node per contraction). As nodes of their own, each is a cluster with its
/// own schedule, and fusion still joins their elementwise neighbours.
///
/// The node is kept whole when a cut would separate two statements that
/// write one tensor, when a statement reads a tensor (not an input) before
/// any statement writes it, when its tensors are not all concrete f32, or
/// when a temporary's name is taken in the graph.
Graph split_compute_node(const Graph &graph, PassStats *stats = nullptr);

}  // namespace atl
