# Graph IR and operator registry sources (paths relative to graph/).
target_sources(atoll_graph PRIVATE
  ir/diagnostics.cpp
  ir/dtype.cpp
  ir/tensor.cpp
  ir/shape.cpp
  ir/graph.cpp
  ir/print_graph.cpp
)
include(ir/ops/sources.cmake)
