# Unit tests of libatoll (paths relative to tests/).
include(unit/src/reference/sources.cmake)
target_sources(atoll_tests PRIVATE
  unit/src/frontend/batch_reader_test.cpp
  unit/src/runtime/npy_init_test.cpp
  unit/src/pipeline/verify_test.cpp
)
target_sources(atoll_tests PRIVATE
  unit/src/ops/definitions_vs_reference_test.cpp
)
target_sources(atoll_tests PRIVATE
  fuzz/batch_reader_fuzz_test.cpp
)
target_sources(atoll_tests PRIVATE
  unit/src/ops/op_cases.cpp
  unit/src/ops/compiled_vs_reference_test.cpp
)
include(unit/src/pipeline/fusion_sources.cmake)
include(unit/src/pipeline/memory_sources.cmake)
include(unit/src/pipeline/compile_path_sources.cmake)
