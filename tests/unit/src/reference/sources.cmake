# Unit tests of the reference interpreter (paths relative to tests/).
target_sources(atoll_tests PRIVATE
  unit/src/reference/reference_op_test.cpp
  unit/src/reference/elementwise_test.cpp
  unit/src/reference/linalg_test.cpp
  unit/src/reference/conv_test.cpp
  unit/src/reference/pool_test.cpp
  unit/src/reference/normalization_test.cpp
  unit/src/reference/reduce_test.cpp
  unit/src/reference/movement_test.cpp
  unit/src/reference/resize_test.cpp
)
