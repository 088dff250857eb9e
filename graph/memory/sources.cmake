# Memory planning: views, lifetimes and arena offsets (paths relative to graph/).
target_sources(atoll_graph PRIVATE
  memory/views.cpp
  memory/buffer_lifetimes.cpp
  memory/pack_buffers.cpp
  memory/check_arena.cpp
  memory/plan_arena.cpp
)
