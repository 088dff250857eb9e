# Fusion: pattern kinds, post-dominator grouping, cost model (paths relative to graph/).
target_sources(atoll_graph PRIVATE
  fusion/check_legality.cpp
  fusion/cost_model.cpp
  fusion/fuse_graph.cpp
  fusion/node_facts.cpp
  fusion/node_groups.cpp
  fusion/post_dominators.cpp
  fusion/print_clusters.cpp
)
