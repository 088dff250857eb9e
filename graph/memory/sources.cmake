# Memory planning: views, lifetimes and arena offsets (paths relative to graph/).
target_sources(atoll_graph PRIVATE
  memory/views.cpp
)
