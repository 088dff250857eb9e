// Rewrites an inference BatchNormalization with run-time parameters into a per-channel scale and shift and one multiply-add per element.
#pragma once

#include "graph/ir/graph.h"

#include "graph/passes/pass_stats.h"

#include <optional>
#include <set>
#include <string>

namespace atl {

/// The per-channel parameters of an inference BatchNormalization, computed
/// once per channel by one Compute node:
///
///   params = Compute(scale, B, mean, var) -> (s, t)
///     "s(c_) = scale(c_) / sqrt(var(c_) + eps)
///      t(c_) = B(c_) - mean(c_) * scale(c_) / sqrt(var(c_) + eps)"
struct ScaleShift {
  Node params;       ///< the Compute node (name "<bn>_ss")
  std::string s, t;  ///< its outputs, [C] f32
};

/// The parameters node of `bn` (a BatchNormalization of `g` with inputs X,
/// scale, B, mean, var: f32, rank-1 [C] parameters with C = X's axis 1, not
/// in training mode, Compute identifiers as names), or nullopt. New tensor
/// names avoid `g`'s and `taken` (and are added to it); `node_names` holds
/// the node names in use (the new node's is added).
std::optional<ScaleShift> batchnorm_params(const Graph &g, const Node &bn, std::set<std::string> &taken,
                                           std::set<std::string> &node_names);

/// BatchNormalization as scale and shift.
///
///   before:  y = BatchNormalization(x, scale, B, mean, var)      x: [N, C, ...] f32, concrete
///   after:   (s, t) = Compute(scale, B, mean, var)              (batchnorm_params)
///            y = Compute(x, s, t)  "y(i0_, c_, ...) = x(i0_, c_, ...) * s(c_) + t(c_)"
///
/// The square root and the division run once per channel instead of once per
/// element; the multiply-add is a broadcast that fuses as an epilogue. With
/// constant parameters fold_constants folds the parameters node. y's node
/// keeps the BatchNormalization's name. Counts "batch normalizations as scale
/// and shift" and "not rewritten: ..." notes.
Graph batchnorm_scale_shift(const Graph &graph, PassStats *stats = nullptr);

}  // namespace atl
