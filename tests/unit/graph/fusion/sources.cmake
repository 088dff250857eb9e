# Unit tests of graph/fusion (paths relative to tests/).
target_sources(atoll_graph_tests PRIVATE
  unit/graph/fusion/check_legality_test.cpp
  unit/graph/fusion/cost_model_test.cpp
  unit/graph/fusion/fuse_graph_test.cpp
  unit/graph/fusion/node_groups_test.cpp
  unit/graph/fusion/post_dominators_test.cpp
)
