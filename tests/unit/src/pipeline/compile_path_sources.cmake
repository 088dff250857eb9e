# Pipeline tests of the shared compile path: simplified graph in every stage, compile without JIT, cluster splits (paths relative to tests/).
target_sources(atoll_tests PRIVATE
  unit/src/pipeline/compile_path_test.cpp
  unit/src/pipeline/band_chain_compile_test.cpp
  unit/src/pipeline/winograd_compile_test.cpp
  unit/src/pipeline/same_clusters_test.cpp
)
