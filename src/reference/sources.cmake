# reference sources (paths relative to src/).
target_sources(atoll_lib PRIVATE
  reference/reference_op.cpp
  reference/reference_internal.cpp
  reference/elementwise.cpp
  reference/linalg.cpp
  reference/conv.cpp
  reference/pool.cpp
  reference/normalization.cpp
  reference/reduce.cpp
  reference/movement.cpp
  reference/resize.cpp
)
