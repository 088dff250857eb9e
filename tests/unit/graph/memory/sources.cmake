# Unit tests of graph/memory (paths relative to tests/).
target_sources(atoll_graph_tests PRIVATE
)
