# Unit tests of the simplification passes (paths relative to tests/).
target_sources(atoll_graph_tests PRIVATE
  unit/graph/passes/band_depthwise_chain_test.cpp
  unit/graph/passes/batchnorm_scale_shift_test.cpp
  unit/graph/passes/block_conv_layout_test.cpp
  unit/graph/passes/cancel_transposes_test.cpp
  unit/graph/passes/eliminate_common_subexpr_test.cpp
  unit/graph/passes/eliminate_dead_nodes_test.cpp
  unit/graph/passes/fold_batchnorm_test.cpp
  unit/graph/passes/fold_constants_test.cpp
  unit/graph/passes/fold_pad_test.cpp
  unit/graph/passes/name_inputs_test.cpp
  unit/graph/passes/pack_gemm_weights_test.cpp
  unit/graph/passes/run_graph.cpp
  unit/graph/passes/simplify_graph_test.cpp
  unit/graph/passes/split_compute_node_test.cpp
  unit/graph/passes/transpose_contraction_operand_test.cpp
  unit/graph/passes/winograd_conv_test.cpp
)
