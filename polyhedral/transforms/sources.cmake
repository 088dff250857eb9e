# Schedule-tree transformations (paths relative to polyhedral/).
target_sources(atoll_poly PRIVATE
  transforms/tile_bands.cpp
  transforms/permute_band.cpp
  transforms/contract_arrays.cpp
  transforms/reuse_temporaries.cpp
  transforms/fuse_sibling_bands.cpp
  transforms/tree_edit.cpp
  transforms/factor_reduction_scale.cpp
  transforms/bound_shifted_exps.cpp
)
