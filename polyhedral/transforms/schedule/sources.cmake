# Schedule-tree transformations and their helpers (tiling, packing, fusion) (paths relative to polyhedral/).
target_sources(atoll_poly PRIVATE
  transforms/schedule/cpu_tiling_common.cpp
  transforms/schedule/footprint.cpp
  transforms/schedule/fuse_sibling_bands.cpp
  transforms/schedule/gemm_tile_sizes.cpp
  transforms/schedule/interleave_rows.cpp
  transforms/schedule/map_to_gpu.cpp
  transforms/schedule/pack_tiles.cpp
  transforms/schedule/permute_band.cpp
  transforms/schedule/tile_bands.cpp
  transforms/schedule/tile_companions.cpp
  transforms/schedule/tile_for_cpu.cpp
  transforms/schedule/tile_transpose.cpp
  transforms/schedule/tile_window_for_cpu.cpp
  transforms/schedule/tree_edit.cpp
)
