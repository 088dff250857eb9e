// Gives graph inputs whose names Compute text cannot hold ("gpu_0/data_0",
// "input.1") a second name that it can, through a no-op Reshape: a view,
// so no kernel and no copy.
#pragma once

#include "graph/ir/graph.h"

#include "graph/passes/pass_stats.h"

namespace atl {

/// Input naming.
///
///   before:  y = Conv(gpu_0/data_0, W)        after:  gpu_0_data_0 = Reshape(gpu_0/data_0, shape=[0, 0, 0, 0])
///                                                     y = Conv(gpu_0_data_0, W)
///
/// For each graph input that is not a compute_identifier and is read by a
/// node other than such a Reshape: every reader then reads the new name (an
/// identifier made from the old one), so that the passes that write Compute
/// nodes (block_conv_layout, batchnorm_scale_shift, pack_gemm_weights) can
/// name it. The Reshape copies each extent (shape 0), symbolic ones too.
/// cancel_transposes keeps such Reshapes. Graph inputs keep their names:
/// callers feed them as before.
Graph name_inputs(const Graph &graph, PassStats *stats = nullptr);

}  // namespace atl
