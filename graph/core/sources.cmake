# The shared vocabulary below every layer (paths relative to graph/).
target_sources(atoll_graph PRIVATE
  core/scalar_ops.cpp
)
