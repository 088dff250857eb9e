# Unit tests of graph/fusion (paths relative to tests/).
target_sources(atoll_graph_tests PRIVATE
)
