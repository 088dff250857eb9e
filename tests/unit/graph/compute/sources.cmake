# Unit tests of the Compute language (paths relative to tests/).
target_sources(atoll_graph_tests PRIVATE
  unit/graph/compute/analyze_test.cpp
  unit/graph/compute/evaluate_test.cpp
  unit/graph/compute/parse_test.cpp
  unit/graph/compute/widen_accumulators_test.cpp
)
