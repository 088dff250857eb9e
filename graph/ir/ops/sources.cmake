# Operator registry entries, one file per operator family (paths relative to graph/).
target_sources(atoll_graph PRIVATE
  ir/op_registry.cpp
  ir/ops/ops_util.cpp
  ir/ops/elementwise.cpp
  ir/ops/linalg.cpp
  ir/ops/conv.cpp
  ir/ops/pool.cpp
  ir/ops/normalization.cpp
  ir/ops/reduce.cpp
  ir/ops/movement.cpp
  ir/ops/slicing.cpp
  ir/ops/resize.cpp
  ir/ops/compute_op.cpp
)
