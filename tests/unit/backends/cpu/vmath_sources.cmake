# Tests of backends/cpu/vector_math (paths relative to tests/).
target_sources(atoll_tests PRIVATE
  unit/backends/cpu/vector_math_test.cpp
)
