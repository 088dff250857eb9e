# Unit tests of graph/memory (paths relative to tests/).
target_sources(atoll_graph_tests PRIVATE
  unit/graph/memory/buffer_lifetimes_test.cpp
  unit/graph/memory/check_arena_test.cpp
  unit/graph/memory/pack_buffers_test.cpp
  unit/graph/memory/views_test.cpp
)
