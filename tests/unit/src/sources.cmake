# Unit tests of libatoll (paths relative to tests/).
include(unit/src/reference/sources.cmake)
target_sources(atoll_tests PRIVATE
  unit/src/frontend/batch_reader_test.cpp
  unit/src/frontend/onnx_reader_test.cpp
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
# The C++ module API (include/atoll/module.h): an executable of its own, small
# to rebuild; its cases are ctest tests like atoll_tests' (label src).
add_executable(atoll_module_tests unit/main.cpp unit/src/api/module_test.cpp unit/src/api/scop_api_test.cpp
               unit/src/api/jscop_test.cpp)
target_link_libraries(atoll_module_tests PRIVATE atoll_lib doctest::doctest Threads::Threads)
target_compile_definitions(atoll_module_tests PRIVATE "ATOLL_SAMPLES_DIR=\"${PROJECT_SOURCE_DIR}/samples\"")
doctest_discover_tests(atoll_module_tests ADD_LABELS 1)

# The JSCoP fuzzer on its own executable: it tells LeakSanitizer about a
# leak in isl's parser (see the test), which takes a full unwind on every
# allocation; only this test pays for that.
add_executable(atoll_jscop_fuzz unit/main.cpp fuzz/jscop_fuzz_test.cpp)
target_link_libraries(atoll_jscop_fuzz PRIVATE atoll_lib doctest::doctest Threads::Threads)
doctest_discover_tests(atoll_jscop_fuzz ADD_LABELS 1)
