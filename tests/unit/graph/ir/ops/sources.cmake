# Unit tests of the operator registry (paths relative to tests/).
target_sources(atoll_graph_tests PRIVATE
  unit/graph/ir/ops/elementwise_test.cpp
  unit/graph/ir/ops/linalg_conv_test.cpp
  unit/graph/ir/ops/pool_norm_test.cpp
  unit/graph/ir/ops/reduce_movement_test.cpp
  unit/graph/ir/ops/slicing_test.cpp
  unit/graph/ir/ops/resize_test.cpp
  unit/graph/ir/ops/compute_op_test.cpp
  unit/graph/ir/ops/definitions_test.cpp
  unit/graph/ir/ops/evaluate_test.cpp
  unit/graph/ir/ops/registry_test.cpp
)
