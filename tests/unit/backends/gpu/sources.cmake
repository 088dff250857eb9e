# Unit tests of the GPU backend (target atoll_tests; paths relative to tests/).
target_sources(atoll_tests PRIVATE
  unit/backends/gpu/gpu_test.cpp
)
