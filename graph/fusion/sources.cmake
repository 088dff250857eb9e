# Fusion: pattern kinds, post-dominator grouping, cost model (paths relative to graph/).
target_sources(atoll_graph PRIVATE
)
