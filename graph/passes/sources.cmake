# Simplification passes (paths relative to graph/).
target_sources(atoll_graph PRIVATE
  passes/band_depthwise_chain.cpp
  passes/batchnorm_scale_shift.cpp
  passes/block_conv_layout.cpp
  passes/cancel_transposes.cpp
  passes/check_constant_indices.cpp
  passes/eliminate_common_subexpr.cpp
  passes/eliminate_dead_nodes.cpp
  passes/evaluate_node.cpp
  passes/fold_batchnorm.cpp
  passes/fold_constants.cpp
  passes/fold_pad.cpp
  passes/name_inputs.cpp
  passes/pack_gemm_weights.cpp
  passes/winograd_conv.cpp
  passes/rebuild_graph.cpp
  passes/row_bands.cpp
  passes/simplify_graph.cpp
  passes/split_compute_node.cpp
  passes/transpose_contraction_operand.cpp
)
