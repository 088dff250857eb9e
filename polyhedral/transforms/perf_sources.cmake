# Performance transformations driven by the cost model (paths relative to polyhedral/).
target_sources(atoll_poly PRIVATE
  transforms/cpu_tiling_common.cpp
  transforms/footprint.cpp
  transforms/tile_companions.cpp
  transforms/tile_for_cpu.cpp
  transforms/tile_window_for_cpu.cpp
  transforms/pack_tiles.cpp
  transforms/interleave_rows.cpp
  transforms/tile_transpose.cpp
  transforms/coalesce_dims.cpp
  transforms/inline_producers.cpp
  transforms/specialize_remainders.cpp
  transforms/version_guards.cpp
)
