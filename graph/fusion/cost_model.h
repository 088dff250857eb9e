// Whether a set of nodes is worth running as one kernel: fusion rules by pattern kind and a simple cost model.
#pragma once

#include "graph/ir/graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace atl::fusion {

/// Limits of automatic fusion.
struct FusionOptions {
  /// Statements per cluster (Compute statements of its nodes): keeps the
  /// scheduler's problem within its isl operation quota.
  int max_statements = 24;
  /// Heavy operators (contractions, reductions) per cluster: two of them in
  /// one kernel share no loops worth sharing and the scheduler may serialise them.
  int max_heavy = 1;
  /// Fuse epilogues (bias, BatchNormalization, activation, residual Add, a
  /// layout conversion) into a Conv, MatMul or Gemm. The polyhedral layer
  /// runs them inside the contraction's tiles (transforms/schedule/tile_companions),
  /// so the contraction keeps its tiling and vector loop.
  bool fuse_epilogues = true;
};

/// What the cost model says of one candidate cluster.
struct ClusterVerdict {
  bool ok = false;
  std::string reason;              ///< why not, when !ok
  std::int64_t bytes_saved = 0;    ///< intermediate traffic that stays inside the kernel
  int statements = 0;
};

/// Judges `nodes` (a candidate cluster; legality is checked elsewhere):
///  - no opaque operator (Compute) is fused with anything;
///  - at most options.max_heavy heavy operators (Conv/MatMul/Gemm, reductions);
///  - a contraction (Conv, MatMul, Gemm) stays alone unless
///    options.fuse_epilogues; then it only takes consumers that are
///    elementwise, broadcast or injective (its epilogue: bias,
///    BatchNormalization, activation, residual Add, a layout conversion or
///    transpose); its producers stay separate (packing and
///    the contraction's loop order matter more than one saved pass);
///  - a reduction (Softmax, LayerNormalization, pools, Reduce*) takes
///    elementwise or broadcast producers and consumers, no injective ones;
///  - at most options.max_statements statements;
///  - some intermediate traffic is saved (a tensor produced and read inside).
ClusterVerdict judge_cluster(const Graph &graph, const std::vector<NodeId> &nodes, const FusionOptions &options = {});

}  // namespace atl::fusion
