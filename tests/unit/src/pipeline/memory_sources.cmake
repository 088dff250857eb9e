# Pipeline tests of memory planning and parallel batch compilation (paths relative to tests/).
target_sources(atoll_tests PRIVATE
  unit/src/pipeline/memory_arena_test.cpp
  unit/src/pipeline/memory_parallel_test.cpp
  unit/src/pipeline/weight_phase_test.cpp
)
