# Unit tests of the CPU backend (target atoll_tests; paths relative to tests/).
target_sources(atoll_tests PRIVATE
  unit/backends/cpu/codegen_test.cpp
  unit/backends/cpu/dtypes_calls_test.cpp
  unit/backends/cpu/forward_inits_test.cpp
  unit/backends/cpu/panel_prefetch_test.cpp
  unit/backends/cpu/hoist_epilogues_test.cpp
  unit/backends/cpu/reduction_ops_test.cpp
  unit/backends/cpu/run_kernels_test.cpp
  unit/backends/cpu/streaming_store_test.cpp
  unit/backends/cpu/strided_transpose_test.cpp
  unit/backends/cpu/test_kernels.cpp
  unit/backends/cpu/thread_pool_test.cpp
  unit/backends/cpu/vector_codegen_test.cpp
  unit/backends/cpu/vector_reduction_test.cpp
  unit/backends/cpu/nan_insensitive_test.cpp
)
include(unit/backends/cpu/vmath_sources.cmake)
