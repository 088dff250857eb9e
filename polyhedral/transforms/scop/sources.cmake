# SCoP-level transformations: they rewrite statements, domains and accesses (paths relative to polyhedral/).
target_sources(atoll_poly PRIVATE
  transforms/scop/bound_shifted_exps.cpp
  transforms/scop/coalesce_dims.cpp
  transforms/scop/factor_reduction_scale.cpp
  transforms/scop/inline_producers.cpp
)
