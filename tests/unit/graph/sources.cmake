# Unit tests of libatoll_graph (paths relative to tests/).
target_sources(atoll_graph_tests PRIVATE
  unit/graph/ir/dtype_test.cpp
  unit/graph/core/parallel_jobs_test.cpp
)
include(unit/graph/compute/sources.cmake)
include(unit/graph/ir/ops/sources.cmake)
target_sources(atoll_graph_tests PRIVATE
  unit/graph/ir/graph_test.cpp
)
include(unit/graph/passes/sources.cmake)
include(unit/graph/fusion/sources.cmake)
include(unit/graph/memory/sources.cmake)
