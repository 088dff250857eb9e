# Loop-AST transformations: they rewrite the LKernel built from the tree (paths relative to polyhedral/).
target_sources(atoll_poly PRIVATE
  transforms/ast/contract_arrays.cpp
  transforms/ast/split_launches.cpp
  transforms/ast/reuse_temporaries.cpp
  transforms/ast/specialize_remainders.cpp
  transforms/ast/version_guards.cpp
)
