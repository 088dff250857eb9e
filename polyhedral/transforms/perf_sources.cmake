# Performance transformations driven by the cost model (paths relative to polyhedral/).
target_sources(atoll_poly PRIVATE
  transforms/footprint.cpp
  transforms/tile_for_cpu.cpp
  transforms/tile_window_for_cpu.cpp
)
